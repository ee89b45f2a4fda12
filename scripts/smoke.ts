// Smoke test of the built binary: start it from a temp dir on a free port, then walk the money path once
// through the public HTTP surface: healthz → login → source/offer/campaign → click → postback → conversion.
// Then what issue 26 fixed, against the binary: a cookie-replaying script's bodiless DELETE (no content type,
// no Origin, no Sec-Fetch-Site) works and a cross-site one is refused; mail leaves with only SVC_SMTP_URL
// and SVC_PUBLIC_URL set (From noreply@<host>); / redirects to /admin; a failed payment is an order `failed`.
import { createHmac } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startRelay } from '../test/helpers/smtp-relay'

const binary = resolve(process.argv[2] ?? 'dist/svc')
const dataDir = mkdtempSync(join(tmpdir(), 'svc-smoke-'))
const port = await freePort()
const base = `http://127.0.0.1:${port}`
const email = 'smoke@example.com'
// A mail domain, so the binary derives its From (noreply@svc-smoke.example.com) from it; requests still go to 127.0.0.1.
const publicHost = 'svc-smoke.example.com'
const password = 'smoke-password-1'

// A local SMTP relay: nodemailer is loaded on the first message, so the walk sends one through the binary.
const relay = await startRelay()

const child = Bun.spawn([binary, 'serve'], {
  cwd: tmpdir(), // the binary must need nothing beside it
  env: {
    PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), SVC_DATA_DIR: dataDir, SVC_ADMIN_EMAIL: email, SVC_ADMIN_PASSWORD: password,
    SVC_SMTP_URL: relay.url, SVC_PUBLIC_URL: `http://${publicHost}:${port}`, ...postgres(),
  },
  stdout: 'pipe',
  stderr: 'pipe',
})
// The binary's output is shown as it comes and kept, so the start line can be checked.
let output = ''
async function relayOutput(stream: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream) {
  const decoder = new TextDecoder()
  for await (const chunk of stream) {
    sink.write(chunk)
    output += decoder.decode(chunk, { stream: true })
  }
}
const outputDone = Promise.all([relayOutput(child.stdout, process.stdout), relayOutput(child.stderr, process.stderr)])

/**
 * SVC_DATABASE_URL set (an EMPTY PostgreSQL database: the walk creates its owner and fixed slugs): the binary
 * runs on it instead of SQLite, with SVC_SECRET as given or a fixed one (Postgres mode requires a secret).
 */
function postgres(): Record<string, string> {
  const url = process.env.SVC_DATABASE_URL
  if (!url) return {}
  return { SVC_DATABASE_URL: url, SVC_SECRET: process.env.SVC_SECRET ?? 'smoke-test-secret-0123456789abcdef' }
}

function check(cond: unknown, what: string): asserts cond {
  if (!cond) throw new Error(`smoke: ${what}`)
  console.log(`smoke ok: ${what}`)
}

async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, fetch: () => new Response() })
  const p = s.port!
  s.stop(true)
  return p
}

try {
  let healthy = false
  for (let i = 0; i < 100 && !healthy; i++) {
    healthy = await fetch(`${base}/healthz`).then((r) => r.ok, () => false)
    if (!healthy) await Bun.sleep(100)
  }
  check(healthy, 'GET /healthz answers 200')
  const health = await (await fetch(`${base}/healthz`)).json()
  check(health.ok === true && typeof health.version === 'string', `healthz body ${JSON.stringify(health)}`)

  const login = await fetch(`${base}/admin/api/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }),
  })
  check(login.status === 200, `login 200 (got ${login.status})`)
  const cookie = login.headers.getSetCookie().find((c) => c.startsWith('svc_admin_session='))!.split(';')[0]!
  const api = async (path: string, body: unknown) => {
    const r = await fetch(`${base}${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const json = await r.json()
    check(r.status === 201, `POST ${path} → 201 (got ${r.status} ${JSON.stringify(json)})`)
    return json
  }
  const source = await api('/admin/api/sources', { name: 'Smoke source' })
  const offer = await api('/admin/api/offers', { name: 'Smoke offer', slug: 'smoke-offer', url: 'https://offer.example/land?cid={click_id}', payout: 12.5 })
  await api('/admin/api/campaigns', { name: 'Smoke', slug: 'smoke', source_id: source.id, offer_id: offer.id })

  const click = await fetch(`${base}/c/smoke?sub1=abc`, { redirect: 'manual' })
  check(click.status === 302, `GET /c/smoke → 302 (got ${click.status})`)
  const location = new URL(click.headers.get('location')!)
  const clickId = location.searchParams.get('cid')!
  check(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(clickId), `click_id ${clickId} is a UUID v4`)

  // The bot list ships inside the binary: a crawler's click is still redirected, and flagged.
  const botClick = await fetch(`${base}/c/smoke`, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' } })
  const botId = new URL(botClick.headers.get('location')!).searchParams.get('cid')!
  const botView = await (await fetch(`${base}/admin/api/clicks/${botId}`, { headers: { cookie } })).json()
  check(botClick.status === 302 && botView.bot_reason === 'bot_user_agent', `a Googlebot click is redirected and flagged (${botView.bot_reason})`)

  const pb = await fetch(`${base}/postback?subid=${clickId}&payout=7.25&status=approved&tid=smoke-1`)
  check(pb.status === 200 && (await pb.text()) === 'OK', 'GET /postback → 200 OK')

  const list = await fetch(`${base}/admin/api/conversions?click_id=${clickId}`, { headers: { cookie } })
  const body = await list.json()
  const conv = body.items?.[0]
  check(list.status === 200 && conv && conv.revenue === 7.25 && conv.type === 'sale' && conv.transaction_id === 'smoke-1',
    `conversion visible: ${JSON.stringify(conv)}`)
  // The browser scripts are embedded in the binary; a hosted landing is served with pixel.js.
  for (const name of ['pixel.js', 'client.js', 'cloak.js', 'i18n.js']) {
    const r = await fetch(`${base}/${name}`)
    check(r.status === 200 && (await r.text()).length > 500 && r.headers.get('etag'), `GET /${name} → 200 with the script and an ETag`)
  }
  await api('/admin/api/landings', { name: 'Smoke page', slug: 'smoke-page', html: '<h1>{click_id}</h1></body>' })
  const lp = await fetch(`${base}/lp/smoke-page`)
  const lpText = await lp.text()
  check(lp.status === 200 && lpText.includes('<h1></h1>') && /src="[^"]*\/pixel\.js"/.test(lpText), `GET /lp/smoke-page serves the page with pixel.js (${lp.status})`)
  // A landing's image: file-type (loaded on the first binary upload) checks the bytes inside the binary.
  const png = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='), (ch) => ch.charCodeAt(0))
  const landingId = (await (await fetch(`${base}/admin/api/landings?limit=1`, { headers: { cookie } })).json()).items[0].id
  const put = (body: Uint8Array<ArrayBuffer>, type: string, path: string) =>
    fetch(`${base}/admin/api/landings/${landingId}/assets/${path}`, { method: 'PUT', headers: { cookie, 'content-type': type }, body })
  const image = await put(png, 'image/png', 'dot.png')
  check(image.status === 201 || image.status === 200, `PUT a PNG asset → ${image.status}`)
  const fake = await put(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>') as Uint8Array<ArrayBuffer>, 'image/png', 'fake.png')
  check(fake.status === 400, `PUT an SVG labelled image/png → 400 (got ${fake.status})`)
  // Mail through the relay with only SVC_SMTP_URL and SVC_PUBLIC_URL set: no email_from, the From is derived.
  const startLine = output.split('\n').find((l) => l.includes('svc started')) ?? ''
  check(startLine.includes(`noreply@${publicHost} (from SVC_PUBLIC_URL)`), `the start line names the From: ${startLine.match(/mail_from=("[^"]*"|\S+)/)?.[0]}`)
  const mailList = await api('/admin/api/email-lists', { name: 'Smoke list' })
  await api(`/admin/api/email-lists/${mailList.id}/subscribers`, { email: 'reader@example.com', name: 'Reader' })
  const send = (subject: string) => fetch(`${base}/admin/api/email-lists/${mailList.id}/broadcasts`, {
    method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ subject, text: 'Hi {name}' }),
  })
  const broadcast = await send('Hello {name}')
  const queued = await broadcast.json()
  check(broadcast.status === 202 && queued.status === 'queued', `POST …/broadcasts without email_from → 202 queued (got ${broadcast.status} ${JSON.stringify(queued)})`)
  const mailNumber = async (count: number) => {
    for (let i = 0; i < 150 && relay.received.length < count; i++) await Bun.sleep(100)
    return relay.received[count - 1]
  }
  const fromOf = (raw: string) => /^From: (.*)$/mi.exec(raw.split(/\r?\n\r?\n/)[0]!)?.[1]
  const mail = await mailNumber(1)
  check(mail?.to[0] === 'reader@example.com' && mail.raw.includes('Hello Reader') && mail.from === `noreply@${publicHost}` && fromOf(mail.raw) === `noreply@${publicHost}`,
    `the broadcast reached the SMTP relay From noreply@${publicHost} (From: ${mail ? fromOf(mail.raw) : 'no mail'})`)
  // The email_from setting wins.
  const settings = await fetch(`${base}/admin/api/settings`, {
    method: 'PUT', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ email_from: 'Smoke <smoke@shop.example>' }),
  })
  check(settings.status === 200, `PUT /admin/api/settings email_from → 200 (got ${settings.status})`)
  check((await send('Again')).status === 202, 'a second broadcast → 202')
  const second = await mailNumber(2)
  check(second && fromOf(second.raw) === 'Smoke <smoke@shop.example>', `with email_from set, mail comes From it (From: ${second ? fromOf(second.raw) : 'no mail'})`)

  // A script replaying the admin cookie, as curl does (no Origin, no Sec-Fetch-Site, no content type): a bodiless
  // DELETE works; the same request marked cross-site by a browser is refused.
  const scripted = await api('/admin/api/sources', { name: 'Deleted by a script' })
  const del = await fetch(`${base}/admin/api/sources/${scripted.id}`, { method: 'DELETE', headers: { cookie } })
  const delBody = await del.text()
  check(del.status === 200 && !del.headers.get('content-type')?.includes('text/html'), `a cookie script's bodiless DELETE /admin/api/sources/:id → 200 (got ${del.status} ${delBody})`)
  const kept = await api('/admin/api/sources', { name: 'Kept from a cross-site page' })
  for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { origin: 'https://evil.example' }] as Record<string, string>[]) {
    const cross = await fetch(`${base}/admin/api/sources/${kept.id}`, { method: 'DELETE', headers: { cookie, ...headers } })
    check(cross.status === 403, `a cross-site DELETE (${JSON.stringify(headers)}) → 403 (got ${cross.status} ${await cross.text()})`)
  }
  const still = await fetch(`${base}/admin/api/sources/${kept.id}`, { headers: { cookie } })
  check(still.status === 200, `the source survived the cross-site DELETEs (GET → ${still.status})`)

  // The bare root sends a browser (or curl -L) to the dashboard.
  for (const method of ['GET', 'HEAD']) {
    const root = await fetch(`${base}/`, { method, redirect: 'manual' })
    check((root.status === 302 || root.status === 303) && root.headers.get('location') === '/admin', `${method} / → ${root.status} Location ${root.headers.get('location')}`)
  }

  // A failed card payment at processor A (pay-a) is an order in the spec's state `failed`.
  const webhookSecret = 'whsec_smoke_0123456789abcdef'
  const secretSet = await fetch(`${base}/admin/api/settings`, {
    method: 'PUT', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ pay_a_ecom_webhook_secret: webhookSecret }),
  })
  check(secretSet.status === 200, `PUT pay_a_ecom_webhook_secret → 200 (got ${secretSet.status})`)
  const buyer = new URL((await fetch(`${base}/c/smoke`, { redirect: 'manual' })).headers.get('location')!).searchParams.get('cid')!
  const payload = JSON.stringify({
    id: 'evt_smoke_failed', object: 'event', type: 'payment_intent.payment_failed', created: Math.floor(Date.now() / 1000), livemode: false,
    data: { object: { id: 'pi_smoke_failed', object: 'payment_intent', amount: 2000, amount_received: 0, currency: 'eur', status: 'requires_payment_method', metadata: { _svc_click: buyer } } },
  })
  const t = Math.floor(Date.now() / 1000)
  const signature = `t=${t},v1=${createHmac('sha256', webhookSecret).update(`${t}.${payload}`).digest('hex')}`
  const hook = await fetch(`${base}/webhook/pay-a-ecom`, { method: 'POST', body: payload, headers: { 'content-type': 'application/json', 'paya-signature': signature } })
  check(hook.status === 200, `POST /webhook/pay-a-ecom payment_intent.payment_failed → 200 (got ${hook.status} ${await hook.text()})`)
  const orders = await (await fetch(`${base}/admin/api/orders?click_id=${buyer}`, { headers: { cookie } })).json()
  check(orders.items?.length === 1 && orders.items[0].status === 'failed', `the order's status is failed (${JSON.stringify(orders.items?.map((o: { status: string }) => o.status))})`)

  // The agent API: the MCP SDK server runs inside the binary; a token sees its tools and calls one.
  const created = await api('/admin/api/tokens', { name: 'smoke', scopes: ['conversions:read', 'reports:read'] })
  const rpc = async (body: unknown, version?: string) => {
    const r = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${created.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
        ...(version ? { 'mcp-protocol-version': version } : {}),
      },
      body: JSON.stringify(body),
    })
    return { status: r.status, json: r.status === 200 ? await r.json() : null }
  }
  const init = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'smoke', version: '1' } } })
  check(init.status === 200 && init.json.result.protocolVersion === '2025-11-25', `POST /mcp initialize → 2025-11-25 (${init.status})`)
  const tools = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, '2025-11-25')
  const names: string[] = tools.json?.result?.tools?.map((t: { name: string }) => t.name) ?? []
  check(names.includes('list_conversions') && names.includes('get_report') && !names.includes('create_campaign'), `tools/list shows the token's ${names.length} tools`)
  const call = await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_conversions', arguments: { click_id: clickId } } }, '2025-11-25')
  const items = call.json?.result?.structuredContent?.items
  check(Array.isArray(items) && items.length === 1 && items[0].transaction_id === 'smoke-1', 'tools/call list_conversions finds the conversion')
  // The dashboard: bundled into the binary (HTML import), its script served from the binary too.
  const dash = await fetch(`${base}/admin`)
  const dashHtml = await dash.text()
  const script = /<script[^>]+src="([^"]+)"/.exec(dashHtml)?.[1]
  const scriptRes = script ? await fetch(new URL(script, base)) : null
  check(dash.status === 200 && scriptRes?.status === 200 && (await scriptRes.text()).includes('svc dashboard'), `GET /admin serves the dashboard and its script (${dash.status}, ${script})`)
  console.log('smoke test passed')
} finally {
  child.kill('SIGTERM')
  await child.exited
  await outputDone
  relay.close()
  rmSync(dataDir, { recursive: true, force: true })
}
