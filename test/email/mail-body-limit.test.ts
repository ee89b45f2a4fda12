// Issue 25 (Low): POST /webhook/mail/:provider read its body whole: a chunked 3 MB body (no Content-Length) was
// recorded, and 9 MB got Bun's bare 413 with a stack trace in the log. The body is now counted as it
// streams: past 2 MB (spec §8, every /webhook/*) the answer is the house 413 JSON body and nothing is
// recorded; exactly 2 MB, chunked, is still read. On the engine under test.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { testDb } from '../helpers/db'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'
import { WEBHOOK_BODY_BYTES } from '../../src/http/body-limit'

let s: TestServer
const TOKEN = 'mail-webhook-token-0123456789'

beforeAll(async () => {
  s = await startServer()
  expect((await s.api('PUT', '/admin/api/settings', { mail_webhook_token: TOKEN })).status).toBe(200)
}, SERVER_TIMEOUT_MS)
afterAll(async () => {
  await s?.destroy()
})

/** `bytes` sent chunked (a ReadableStream: no Content-Length), 64 KB at a time. */
function chunked(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= bytes.length) return c.close()
      c.enqueue(bytes.subarray(at, (at += 64 * 1024)))
    },
  })
}
/** A generic bounce report padded with spaces (still valid JSON) to exactly `size` bytes. */
function report(email: string, id: string, size: number): Uint8Array {
  const json = JSON.stringify([{ type: 'bounce', hard: true, email, id }])
  return new TextEncoder().encode(json + ' '.repeat(size - json.length))
}
const hook = (body: BodyInit) =>
  fetch(`${s.base}/webhook/mail/generic?token=${TOKEN}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit)
    .then(async (r) => ({ status: r.status, body: await r.json() }))
const recorded = async (email: string) => (await testDb(s).all('SELECT id FROM mail_events WHERE email = $email', { email })).length
const TOO_LARGE = { status: 413, body: { error: `request body too large (at most ${WEBHOOK_BODY_BYTES} bytes)` } }

describe('POST /webhook/mail/:provider: the body is counted as it streams', () => {
  test('chunked 3 MB and 9 MB bodies: the JSON 413, nothing recorded; exactly 2 MB chunked is recorded', async () => {
    expect(await hook(chunked(report('three@example.com', 'm3', 3 * 1024 * 1024)))).toEqual(TOO_LARGE)
    expect(await hook(chunked(report('nine@example.com', 'm9', 9 * 1024 * 1024)))).toEqual(TOO_LARGE)
    expect(await hook(chunked(report('over@example.com', 'm1', WEBHOOK_BODY_BYTES + 1)))).toEqual(TOO_LARGE)
    for (const email of ['three@example.com', 'nine@example.com', 'over@example.com']) expect(await recorded(email)).toBe(0)
    // Declared over the limit: the same answer, before the body is read.
    expect(await hook(report('declared@example.com', 'md', WEBHOOK_BODY_BYTES + 1) as Uint8Array<ArrayBuffer>)).toEqual(TOO_LARGE)
    expect(await recorded('declared@example.com')).toBe(0)
    // Exactly 2 MB, chunked, is read and recorded.
    expect(await hook(chunked(report('exact@example.com', 'mx', WEBHOOK_BODY_BYTES)))).toEqual({ status: 200, body: { ok: true, recorded: 1, duplicates: 0 } })
    expect(await recorded('exact@example.com')).toBe(1)
  })
})
