// The login limit counts failures only: 5 per sliding 15 minutes per client address (IPv6: per /64),
// plus a per-account backoff so guesses spread over many addresses gain nothing. Every request comes
// through a trusted proxy with its own X-Forwarded-For address.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { OWNER, startServer, type TestServer } from '../helpers/server'
import { addUser, send, USER_PASSWORD } from './helpers'

let s: TestServer
let n = 1
const freshIp = () => `198.51.100.${n++}`
beforeAll(async () => { s = await startServer({ SVC_TRUST_PROXY: '1' }) })
afterAll(() => s.destroy())

const login = (ip: string, body: unknown) =>
  send(s, 'POST', '/admin/api/login', {
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
const wrong = (email: string) => ({ email, password: 'wrong-password' })

describe('only failures count', () => {
  // Ten password checks in a row (argon2, CPU-bound on purpose): ~1.6 s on an idle machine, close to bun's
  // default 5 s on a loaded one; what this test checks is the statuses, not the speed.
  test('ten successful logins in a row from one address all succeed', async () => {
    const ip = freshIp()
    for (let i = 0; i < 10; i++) expect((await login(ip, OWNER)).status).toBe(200)
  }, 20_000)

  test('malformed bodies (400) do not count either', async () => {
    const ip = freshIp()
    for (const body of ['{"email":', '[]', JSON.stringify({ email: OWNER.email }), JSON.stringify({ email: 1, password: 2 }), '', '{}', 'null', '"x"']) {
      expect((await login(ip, body)).status).toBe(400)
    }
    for (let i = 0; i < 4; i++) expect((await login(ip, wrong(`nobody-${i}@example.com`))).status).toBe(401)
    expect((await login(ip, OWNER)).status).toBe(200)
  }, 20_000) // five password checks: the same CPU-bound reason as above

  test('concurrent wrong guesses cannot slip through before they are counted: exactly 5 are checked', async () => {
    const ip = freshIp()
    const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => login(ip, wrong(`parallel-${i}@example.com`)).then((r) => r.status)))
    expect(statuses.filter((x) => x === 401).length).toBe(5)
    expect(statuses.filter((x) => x === 429).length).toBe(7)
  })
})

describe('per address', () => {
  test('IPv6 clients are grouped by /64: another address of the same /64 is limited, another /64 is not', async () => {
    for (let i = 1; i <= 5; i++) expect((await login(`2001:db8:77:1::${i}`, wrong(`v6-${i}@example.com`))).status).toBe(401)
    const same64 = await login('2001:db8:77:1:ffff:ffff:ffff:ffff', OWNER)
    expect(same64.status).toBe(429)
    expect(same64.body).toEqual({ error: 'too many requests' })
    expect((await login('2001:db8:77:2::1', OWNER)).status).toBe(200)
  })
})

describe('per account', () => {
  test('after 5 failures in a row for one email, from 5 addresses, a 6th address waits 1 s, then 2 s…', async () => {
    await addUser(s, 'target@example.com')
    for (let i = 0; i < 5; i++) expect((await login(freshIp(), wrong('target@example.com'))).status).toBe(401)
    const waiting = await login(freshIp(), { email: 'TARGET@example.com ', password: USER_PASSWORD })
    expect(waiting.status).toBe(429)
    expect(waiting.body).toEqual({ error: 'too many requests' })
    expect(waiting.headers.get('retry-after')).toBe('1')
    await Bun.sleep(1100)
    expect((await login(freshIp(), wrong('target@example.com'))).status).toBe(401)
    const longer = await login(freshIp(), wrong('target@example.com'))
    expect(longer.status).toBe(429)
    expect(longer.headers.get('retry-after')).toBe('2')
    // Unknown emails are limited alike: a 429 tells nothing about which accounts exist.
    for (let i = 0; i < 5; i++) await login(freshIp(), wrong('ghost@example.com'))
    expect((await login(freshIp(), wrong('ghost@example.com'))).status).toBe(429)
  })

  test('an address that signed in to the account before is not held back by strangers, and its success clears the backoff', async () => {
    await addUser(s, 'owner2@example.com')
    const home = freshIp()
    expect((await login(home, { email: 'owner2@example.com', password: USER_PASSWORD })).status).toBe(200)
    for (let i = 0; i < 6; i++) await login(freshIp(), wrong('owner2@example.com'))
    expect((await login(freshIp(), { email: 'owner2@example.com', password: USER_PASSWORD })).status).toBe(429)
    expect((await login(home, { email: 'owner2@example.com', password: USER_PASSWORD })).status).toBe(200)
    expect((await login(freshIp(), { email: 'owner2@example.com', password: USER_PASSWORD })).status).toBe(200)
  })
})
