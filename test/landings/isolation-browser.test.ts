// Issue 25 finding 1 in a real Chromium: a landing's html or uploaded script must not act with the admin's
// session. A user holding only landings:write saves a landing whose inline script, and an uploaded .js asset
// it loads, POST to /admin/api/users with is_owner:true; the owner, signed in in the same browser, opens
// /lp/<slug>: nobody is created (the page is sandboxed: an opaque origin, so the admin cookie is not sent,
// the preflight gets no CORS, and the admin API refuses Origin: null). In that same sandboxed page pixel.js
// still records the page view, the lead form (client.js) still posts and follows its redirect, and the /r
// link still reaches the offer.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { launchBrowser } from '../helpers/browser'
import { startListener, type Listener } from '../helpers/listener'
import { OWNER, startServer, type TestServer } from '../helpers/server'
import { addUser, cookieFor } from '../admin/helpers'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'

let s: TestServer
let offerSite: Listener
let browser: Browser
let desktopUa: string
const contexts: BrowserContext[] = []
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

beforeAll(async () => {
  offerSite = startListener((req) => req.url.pathname === '/offer'
    ? new Response('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Offer</title></head><body><h1>Offer page</h1></body></html>', { headers: { 'content-type': 'text/html; charset=utf-8' } })
    : new Response('not found', { status: 404 }))
  s = await startServer()
  browser = await launchBrowser()
  desktopUa = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${browser.version().split('.')[0]}.0.0.0 Safari/537.36`
}, SERVER_TIMEOUT_MS)

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {})
  await browser?.close()
  offerSite?.stop()
  await s?.destroy()
}, SERVER_TIMEOUT_MS)

async function until<T>(what: string, probe: () => Promise<{ done: boolean; value: T }>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const { done, value } = await probe()
    if (done) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(value)}`)
    await sleep(50)
  }
}

/** The attack: what a landing's script would send to make its author an owner. */
const attack = (email: string) => `fetch('/admin/api/users', {method: 'POST', credentials: 'include', headers: {'content-type': 'application/json'},
  body: JSON.stringify({email: '${email}', password: 'mallory-password-1', permissions: {users: {read: true, write: true}}, is_owner: true})})`

const report = (id: string, call: string) => `(function () {
  var out = document.getElementById('${id}');
  try {
    ${call}.then(function (r) { out.textContent = 'answered ' + r.status; }, function () { out.textContent = 'blocked'; });
  } catch (e) { out.textContent = 'threw'; }
})();`

/** The owner's browser, signed in through the admin API from the dashboard's own page (a same-origin write). */
async function ownerBrowser(): Promise<Page> {
  const context = await browser.newContext({ userAgent: desktopUa })
  contexts.push(context)
  const page = await context.newPage()
  await page.goto(`${s.base}/admin/`)
  const login = await page.evaluate(async (o) => {
    const res = await fetch('/admin/api/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(o) })
    return res.status
  }, OWNER)
  expect(login).toBe(200)
  expect((await context.cookies()).map((c) => c.name)).toContain('svc_admin_session')
  // The dashboard's own writes still go through in a real browser (Origin and Sec-Fetch-Site: same-origin).
  const write = await page.evaluate(async () => {
    const res = await fetch('/admin/api/sources', { method: 'POST', credentials: 'same-origin', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Dashboard write' }) })
    const created = await res.json()
    const del = await fetch(`/admin/api/sources/${created.id}`, { method: 'DELETE', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: '{}' })
    return [res.status, del.status]
  })
  expect(write).toEqual([201, 200])
  return page
}

async function users(): Promise<string[]> {
  return (await s.api('GET', '/admin/api/users?limit=500')).body.items.map((u: any) => u.email).sort()
}

test('a landing (inline script and uploaded .js asset) opened by the signed-in owner cannot create an owner; pixel.js, the lead form and /r still work', async () => {
  // The attacker: a user who may only edit landings.
  const editorId = await addUser(s, 'editor@example.com', { landings: { read: true, write: true } })
  const editor = await cookieFor(s, editorId)

  const source = (await s.api('POST', '/admin/api/sources', { name: 'Src' })).body
  const offer = (await s.api('POST', '/admin/api/offers', { name: 'Offer', slug: 'iso-offer', url: `${offerSite.base}/offer?cid={click_id}` })).body
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Promo</title></head>
<body>
<h1>Promo</h1>
<p id="inline">pending</p><p id="asset">pending</p><p id="simple">pending</p>
<script>${report('inline', attack('mallory-inline@example.com'))}</script>
<script>${report('simple', "fetch('/admin/api/sources', {method: 'POST', credentials: 'include', body: JSON.stringify({name: 'planted'})})")}</script>
<script src="/lp/promo/evil.js"></script>
<script src="/client.js"></script>
<a id="go" href="{offer_url}">Continue</a>
<form data-svc-lead><input name="email" type="email"><button type="submit">Join</button></form>
</body></html>`
  const saved = await s.api('POST', '/admin/api/landings', { name: 'Promo', slug: 'promo', html }, editor)
  expect(saved.status).toBe(201)
  const landing = saved.body
  const upload = await fetch(`${s.base}/admin/api/landings/${landing.id}/assets/evil.js`, {
    method: 'PUT', headers: { cookie: editor, 'content-type': 'text/javascript' }, body: report('asset', attack('mallory-asset@example.com')),
  })
  expect(upload.status).toBe(201)
  const campaign = (await s.api('POST', '/admin/api/campaigns', { name: 'Promo', slug: 'iso-camp', source_id: source.id, offer_id: offer.id, landing_id: landing.id })).body
  const before = await users()
  const sourcesBefore = (await s.api('GET', '/admin/api/sources?limit=500')).body.items.length

  const page = await ownerBrowser()
  const res = await page.goto(`${s.base}/lp/promo`)
  const servedAt = Date.now()
  expect(res!.status()).toBe(200)
  await page.waitForFunction(() => ['inline', 'asset', 'simple'].every((id) => document.getElementById(id)!.textContent !== 'pending'), null, { timeout: 10_000 })
  // The scripts ran (in an opaque origin) and their requests were stopped.
  expect({
    inline: await page.textContent('#inline'), asset: await page.textContent('#asset'),
    origin: await page.evaluate(() => window.origin),
    cookie: await page.evaluate(() => { try { return document.cookie } catch { return 'threw' } }),
  }).toEqual({ inline: 'blocked', asset: 'blocked', origin: 'null', cookie: 'threw' })
  // A simple request (no preflight) is sent, without the admin's cookie or refused for its Origin: null; unreadable either way.
  expect(await page.textContent('#simple')).toBe('blocked')
  await sleep(300)
  expect(await users()).toEqual(before)
  expect((await users()).filter((e) => e.startsWith('mallory'))).toEqual([])
  expect((await s.api('GET', '/admin/api/sources?limit=500')).body.items.length).toBe(sourcesBefore)
  expect(res!.headers()['content-security-policy']).toBe('sandbox allow-scripts allow-forms allow-popups allow-top-navigation-by-user-activation')

  // pixel.js recorded the page view of this click, from the sandbox.
  const clickId = await page.evaluate(() => (window as any).svc?._px?.clickId as string)
  expect(clickId).toMatch(/^[0-9a-f-]{36}$/)
  const [view] = await until('the page_view', async () => {
    const body = (await s.api('GET', `/admin/api/events?click_id=${clickId}&name=page_view`)).body
    return { done: body.items.length > 0, value: body.items }
  })
  expect(view).toMatchObject({ name: 'page_view', click_id: clickId, landing_id: landing.id, campaign_id: campaign.id })

  // The lead form (client.js) posts from the opaque origin, reads {ok, redirect_url} and follows it to the offer.
  await sleep(Math.max(0, servedAt + 2200 - Date.now()))
  await page.click('input[name=email]')
  await page.keyboard.type('ada@example.com', { delay: 10 })
  await Promise.all([page.waitForURL(`${offerSite.base}/offer?cid=${clickId}`, { timeout: 10_000 }), page.click('button[type=submit]')])
  expect(await page.textContent('h1')).toBe('Offer page')
  const leads = (await s.api('GET', `/admin/api/leads?click_id=${clickId}`)).body.items
  expect(leads.map((l: any) => [l.email, l.landing_id])).toEqual([['ada@example.com', landing.id]])

  // The /r link ({offer_url}) from the sandboxed page reaches the offer too.
  await page.goto(`${s.base}/lp/promo?click_id=${clickId}`)
  const hits = offerSite.received.filter((r) => r.url.pathname === '/offer').length
  await Promise.all([page.waitForURL(`${offerSite.base}/offer?cid=${clickId}`, { timeout: 10_000 }), page.click('#go')])
  expect(offerSite.received.filter((r) => r.url.pathname === '/offer').length).toBe(hits + 1)

  // Still no new user, and the owner is still signed in.
  expect(await users()).toEqual(before)
  const me = await s.api('GET', '/admin/api/me')
  expect(me.body.email).toBe(OWNER.email)
}, SERVER_TIMEOUT_MS)

test('a landing that submits a form to the admin API (allowed by the sandbox) creates nothing', async () => {
  const editor = await cookieFor(s, await addUser(s, 'editor2@example.com', { landings: { read: true, write: true } }))
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>F</title></head><body>
<form id="f" method="POST" action="/admin/api/users" enctype="text/plain"><input type="hidden" name='{"email":"mallory-form@example.com","password":"mallory-password-1","is_owner":true,"x":"' value='"}'></form>
<script>document.getElementById('f').submit();</script></body></html>`
  expect((await s.api('POST', '/admin/api/landings', { name: 'Form', slug: 'promo-form', html }, editor)).status).toBe(201)
  const before = await users()
  const page = await ownerBrowser()
  const answer = page.waitForResponse((r) => r.url() === `${s.base}/admin/api/users` && r.request().method() === 'POST', { timeout: 10_000 })
  await page.goto(`${s.base}/lp/promo-form`)
  const res = await answer
  // The browser sent it as a cross-site POST: refused before anything is read.
  expect([401, 403]).toContain(res.status())
  expect(await users()).toEqual(before)
}, SERVER_TIMEOUT_MS)
