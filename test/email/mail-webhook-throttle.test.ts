// The 401 throttle on the mail-provider webhooks (issue 25, as on the commerce webhooks): 20 refused deliveries
// a minute from one address (an IPv6 /64 is one), then 429 with Retry-After; a valid delivery from that address
// still counts, and another address is not affected. On either engine.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
const TOKEN = 'mail-webhook-token-0123456789'
beforeAll(async () => {
  s = await startServer({ SVC_TRUST_PROXY: '1' })
  expect((await s.api('PUT', '/admin/api/settings', { mail_webhook_token: TOKEN })).status).toBe(200)
})
afterAll(() => s.destroy())

const hook = (token: string, from: string) =>
  fetch(`${s.base}/webhook/mail/generic?token=${token}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify({ type: 'bounce', hard: false, email: 'soft@example.com', id: `ev-${Math.random()}` }),
  }).then(async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.json() as Record<string, unknown> }))

test('20 bad tokens a minute from one /64, then 429 with Retry-After; a valid token still counts; other addresses are not affected', async () => {
  for (let i = 0; i < 20; i++) {
    const r = await hook('guess-0123456789abcdef', `2001:db8:7:7::${i + 1}`)
    expect({ i, status: r.status, body: r.body }).toEqual({ i, status: 401, body: { error: 'invalid token' } })
  }
  const over = await hook('guess-0123456789abcdef', '2001:db8:7:7::ff')
  expect(over.status).toBe(429)
  expect(over.body).toEqual({ error: 'too many refused deliveries from this address; retry later' })
  expect(Number(over.retryAfter)).toBeGreaterThan(0)
  expect((await hook(TOKEN, '2001:db8:7:7::1')).status).toBe(200)
  expect((await hook('guess-0123456789abcdef', '198.51.100.9')).status).toBe(401)
})
