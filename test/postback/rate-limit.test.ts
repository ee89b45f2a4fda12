import { afterAll, beforeAll, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { startServer, type TestServer } from '../helpers/server'
import { countRows, postback } from './seed'

let s: TestServer
beforeAll(async () => { s = await startServer() })
afterAll(() => s.destroy())

async function awayFromMinuteBoundary() {
  // The sliding window blends two fixed windows; a boundary mid-test would blur the exact count.
  const intoMinute = Date.now() % 60_000
  if (intoMinute > 50_000) await Bun.sleep(60_000 - intoMinute + 50)
}

test('the 601st postback within a minute from one address answers 429 with Retry-After, before anything else', async () => {
  await awayFromMinuteBoundary()
  await s.ctx.settings.update({ postback_secret: 'set-so-unsigned-calls-would-be-401' })
  const statuses: number[] = []
  for (let i = 0; i < 600; i++) statuses.push((await postback(s, 'subid=x')).status)
  expect(statuses.every((st) => st === 401)).toBe(true)

  const limited = await postback(s, 'subid=x')
  expect(limited.status).toBe(429)
  expect(await limited.json()).toEqual({ error: 'too many requests' })
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)

  // Without SVC_TRUST_PROXY the address comes from the socket: a forged X-Forwarded-For does not escape the limit.
  const spoofed = await postback(s, 'subid=x', { 'x-forwarded-for': '198.51.100.1' })
  expect(spoofed.status).toBe(429)
  expect(await countRows(s, 'postback_errors')).toBe(0)
}, 90_000)

test('behind a trusted proxy each X-Forwarded-For client address has its own 600 per minute', async () => {
  const p = await startServer({ SVC_TRUST_PROXY: '1' })
  try {
    await awayFromMinuteBoundary()
    const first = { 'x-forwarded-for': '198.51.100.1' }
    for (let i = 0; i < 600; i++) expect((await postback(p, 'subid=x', first)).status).toBe(200)
    expect((await postback(p, 'subid=x', first)).status).toBe(429)
    expect((await postback(p, 'subid=x', { 'x-forwarded-for': '198.51.100.2' })).status).toBe(200)
    const ips = await testDb(p).all('SELECT DISTINCT ip FROM postback_errors ORDER BY ip')
    expect(ips).toEqual([{ ip: '198.51.100.1' }, { ip: '198.51.100.2' }])
  } finally {
    await p.destroy()
  }
}, 90_000)
