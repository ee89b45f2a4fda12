import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { OWNER, startServer, type TestServer } from '../helpers/server'
import { SECTIONS } from '../../src/lib/permissions'
import { addUser, cookieFor, send } from './helpers'

let s: TestServer
beforeAll(async () => { s = await startServer() })
afterAll(() => s.destroy())

const none = () => Object.fromEntries(SECTIONS.map((x) => [x, { read: false, write: false }]))
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const secretsSeen: string[] = []
/** Every response body of this file is checked for passwords and hashes at the end. */
const bodies: string[] = []
async function api(method: string, path: string, body?: unknown, cookie?: string) {
  const res = await s.api(method, path, body, cookie)
  bodies.push(res.text)
  return res
}

describe('POST /admin/api/users', () => {
  test('creates a user: 201 with id, email, all 8 sections, is_owner, ISO timestamps, and no password', async () => {
    secretsSeen.push('alice-password-1')
    const res = await api('POST', '/admin/api/users', {
      email: ' Alice@Example.com ', password: 'alice-password-1', permissions: { campaigns: { read: true }, reports: { read: true, write: true } },
    })
    expect(res.status).toBe(201)
    const expected = none()
    expected.campaigns = { read: true, write: false }
    expected.reports = { read: true, write: true }
    expect(res.body).toEqual({
      id: expect.any(Number), email: 'alice@example.com', permissions: expected, is_owner: false,
      created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO),
    })
    expect(Object.keys(res.body)).not.toContain('password')
  })

  test('answers 409 for an email that is taken, in any letter case', async () => {
    const res = await api('POST', '/admin/api/users', { email: 'ALICE@example.com', password: 'another-password' })
    expect(res.status).toBe(409)
    expect(res.body).toEqual({ error: 'a user with this email already exists' })
  })

  test('answers 400 naming the field for a bad email, a short password, bad permissions and wrong types', async () => {
    const cases: Array<[unknown, string]> = [
      [{ email: 'not-an-email', password: 'long-enough-1' }, 'email:'],
      [{ email: 'short@example.com', password: 'short' }, 'password:'],
      [{ email: 'p1@example.com', password: 'long-enough-1', permissions: { sales: { read: true } } }, 'permissions:'],
      [{ email: 'p2@example.com', password: 'long-enough-1', permissions: { campaigns: { read: 'yes' } } }, 'permissions.campaigns.read'],
      [{ email: 'p3@example.com', password: 'long-enough-1', permissions: { campaigns: { delete: true } } }, 'permissions.campaigns:'],
      [{ email: 'p4@example.com', password: 'long-enough-1', permissions: [] }, 'permissions'],
      [{ email: 'p5@example.com', password: 'long-enough-1', is_owner: 'yes' }, 'is_owner:'],
      [{ email: 7, password: 'long-enough-1' }, 'email:'],
      [{ password: 'long-enough-1' }, 'email:'],
      [{ email: `${'x'.repeat(5000)}@example.com`, password: 'long-enough-1' }, 'email:'],
    ]
    for (const [body, prefix] of cases) {
      const res = await api('POST', '/admin/api/users', body)
      expect({ body, status: res.status }).toEqual({ body, status: 400 })
      expect({ body, error: res.body.error.startsWith(prefix) }).toEqual({ body, error: true })
    }
    expect((await api('GET', '/admin/api/users?limit=500')).body.items.map((u: any) => u.email)).not.toContain('p1@example.com')
  })

  test('ignores unknown fields', async () => {
    const res = await api('POST', '/admin/api/users', { email: 'extra@example.com', password: 'long-enough-1', role: 'god' })
    expect(res.status).toBe(201)
    expect(res.body.role).toBeUndefined()
  })
})

describe('GET /admin/api/users', () => {
  test('pages with limit and next_cursor until next_cursor is null', async () => {
    const seen: number[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const res = await api('GET', `/admin/api/users?limit=1${cursor ? `&cursor=${cursor}` : ''}`)
      expect(res.status).toBe(200)
      expect(res.body.items.length).toBe(1)
      seen.push(res.body.items[0].id)
      cursor = res.body.next_cursor
      pages++
    } while (cursor && pages < 50)
    const all = await api('GET', '/admin/api/users')
    expect(seen).toEqual(all.body.items.map((u: any) => u.id))
    expect(all.body.next_cursor).toBeNull()
    expect(seen.length).toBeGreaterThanOrEqual(3)
  })

  test('answers 400 for a bad limit or cursor', async () => {
    for (const q of ['limit=0', 'limit=abc', 'limit=-1', 'cursor=xyz', 'cursor=1.5']) {
      const res = await api('GET', `/admin/api/users?${q}`)
      expect({ q, status: res.status }).toEqual({ q, status: 400 })
    }
    expect((await api('GET', '/admin/api/users?limit=100000')).status).toBe(200)
  })

  test('GET /:id answers 404 for unknown and non-numeric ids', async () => {
    for (const id of ['999999', 'abc', '0', '-1', '1e3', '99999999999999999999']) {
      const res = await api('GET', `/admin/api/users/${id}`)
      expect({ id, status: res.status, body: res.body }).toEqual({ id, status: 404, body: { error: 'user not found' } })
    }
    const owner = await api('GET', '/admin/api/users/1')
    expect(owner.body.email).toBe(OWNER.email)
    expect(owner.body.is_owner).toBe(true)
    expect(owner.body.permissions).toEqual(Object.fromEntries(SECTIONS.map((x) => [x, { read: true, write: true }])))
  })
})

describe('PATCH /admin/api/users/:id', () => {
  test('changes permissions, effective at once for the user\'s next request', async () => {
    const id = await addUser(s, 'perm@example.com', {})
    const cookie = await cookieFor(s, id)
    expect((await send(s, 'GET', '/admin/api/sources', { headers: { cookie } })).status).toBe(403)
    const res = await api('PATCH', `/admin/api/users/${id}`, { permissions: { campaigns: { read: true } } })
    expect(res.status).toBe(200)
    expect(res.body.permissions.campaigns).toEqual({ read: true, write: false })
    expect((await send(s, 'GET', '/admin/api/sources', { headers: { cookie } })).status).toBe(200)
  })

  test('a new password revokes that user\'s sessions; the new password signs in', async () => {
    const id = await addUser(s, 'rotate@example.com', {})
    const cookie = await cookieFor(s, id)
    secretsSeen.push('rotated-password-9')
    const res = await api('PATCH', `/admin/api/users/${id}`, { password: 'rotated-password-9' })
    expect(res.status).toBe(200)
    expect(res.headers.getSetCookie()).toEqual([]) // someone else's password: the caller's cookie stays
    expect((await send(s, 'GET', '/admin/api/me', { headers: { cookie } })).status).toBe(401)
    await s.login('rotate@example.com', 'rotated-password-9')
  })

  test('changing your own password hands you a fresh cookie and kills the old one', async () => {
    const id = await addUser(s, 'selfrotate@example.com', { users: { read: true, write: true } })
    const old = await cookieFor(s, id)
    secretsSeen.push('self-rotated-pw-7')
    const res = await api('PATCH', `/admin/api/users/${id}`, { password: 'self-rotated-pw-7' }, old)
    expect(res.status).toBe(200)
    const fresh = res.headers.getSetCookie().find((c) => c.startsWith('svc_admin_session='))!.split(';')[0]!
    expect((await send(s, 'GET', '/admin/api/me', { headers: { cookie: old } })).status).toBe(401)
    expect((await send(s, 'GET', '/admin/api/me', { headers: { cookie: fresh } })).status).toBe(200)
  })

  test('answers 409 when the new email belongs to someone else, 400 for a short password, 404 for an unknown id', async () => {
    const id = await addUser(s, 'mover@example.com', {})
    expect((await api('PATCH', `/admin/api/users/${id}`, { email: 'alice@example.com' })).status).toBe(409)
    expect((await api('PATCH', `/admin/api/users/${id}`, { email: 'MOVER@example.com' })).status).toBe(200)
    const short = await api('PATCH', `/admin/api/users/${id}`, { password: '1234567' })
    expect(short.status).toBe(400)
    expect(short.body.error.startsWith('password:')).toBe(true)
    expect((await api('PATCH', '/admin/api/users/424242', { email: 'x@example.com' })).status).toBe(404)
  })

  test('an owner cannot demote themselves (403, which also protects the last owner); another owner can be demoted', async () => {
    const res = await api('PATCH', '/admin/api/users/1', { is_owner: false })
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ error: 'you cannot change your own owner flag' })

    const second = (await api('POST', '/admin/api/users', { email: 'owner2@example.com', password: 'owner2-password', is_owner: true })).body
    expect(second.is_owner).toBe(true)
    const demoted = await api('PATCH', `/admin/api/users/${second.id}`, { is_owner: false })
    expect(demoted.status).toBe(200)
    expect(demoted.body.is_owner).toBe(false)
    expect((await api('PATCH', '/admin/api/users/1', { is_owner: false })).status).toBe(403)
  })
})

describe('owners are protected from non-owners holding users:write', () => {
  test('a non-owner cannot create, promote, change or delete an owner (403), but manages other users', async () => {
    const admin = await cookieFor(s, await addUser(s, 'useradmin@example.com', { users: { read: true, write: true } }))
    const create = await api('POST', '/admin/api/users', { email: 'sneaky@example.com', password: 'sneaky-password', is_owner: true }, admin)
    expect(create.status).toBe(403)
    expect((await api('PATCH', '/admin/api/users/1', { password: 'taken-over-123' }, admin)).status).toBe(403)
    expect((await api('DELETE', '/admin/api/users/1', undefined, admin)).status).toBe(403)
    const plain = await api('POST', '/admin/api/users', { email: 'plain@example.com', password: 'plain-password' }, admin)
    expect(plain.status).toBe(201)
    expect((await api('PATCH', `/admin/api/users/${plain.body.id}`, { is_owner: true }, admin)).status).toBe(403)
    // Only what the admin holds itself (users here), see test/users/grants.test.ts.
    expect((await api('PATCH', `/admin/api/users/${plain.body.id}`, { permissions: { users: { read: true } } }, admin)).status).toBe(200)
    expect((await api('DELETE', `/admin/api/users/${plain.body.id}`, undefined, admin)).status).toBe(200)
    await s.login(OWNER.email, OWNER.password) // the owner's password is unchanged
  })
})

describe('DELETE /admin/api/users/:id', () => {
  test('deletes a user (200 {"ok":true}); their cookie stops working; a second delete is 404', async () => {
    const id = await addUser(s, 'doomed@example.com', {})
    const cookie = await cookieFor(s, id)
    const res = await api('DELETE', `/admin/api/users/${id}`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ ok: true })
    expect((await send(s, 'GET', '/admin/api/me', { headers: { cookie } })).status).toBe(401)
    expect((await api('DELETE', `/admin/api/users/${id}`)).status).toBe(404)
  })

  test('refuses to delete yourself (409), which also protects the last owner', async () => {
    const res = await api('DELETE', '/admin/api/users/1')
    expect(res.status).toBe(409)
    expect(res.body).toEqual({ error: 'you cannot delete yourself' })
    const selfish = await addUser(s, 'selfish@example.com', { users: { read: true, write: true } })
    expect((await api('DELETE', `/admin/api/users/${selfish}`, undefined, await cookieFor(s, selfish))).status).toBe(409)
  })
})

describe('passwords', () => {
  test('never appear in any response of the users API, nor do their hashes', async () => {
    bodies.push((await api('GET', '/admin/api/users?limit=500')).text)
    expect(bodies.length).toBeGreaterThan(20)
    for (const text of bodies) {
      for (const secret of secretsSeen) expect(text).not.toContain(secret)
      expect(text).not.toContain('password_hash')
      expect(text).not.toMatch(/\$argon2|\$2[aby]\$/)
      expect(text).not.toContain('"password"')
    }
  })

  test('are stored hashed', async () => {
    const row = (await testDb(s).get<{ password_hash: string }>('SELECT password_hash FROM users WHERE email = $e', { e: 'alice@example.com' }))!
    expect(row.password_hash.startsWith('$argon2')).toBe(true)
    expect(row.password_hash).not.toContain('alice-password-1')
  })
})
