// UserStore on both engines (issue 8): the same expectations against SQLite and PostgreSQL, plus the
// Postgres-only races between two instances on one database.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { UserStore } from '../../src/users/store'
import { EMAIL_TAKEN } from '../../src/users/rules'
import { AppError } from '../../src/lib/errors'
import { SessionSigner, SESSION_COOKIE } from '../../src/auth'
import { authenticateAdmin } from '../../src/http/admin-guard'
import type { AppContext } from '../../src/context'
import type { PgDatabase } from '../../src/db/pg/client'
import { ENGINES, openFresh, rawRow, type OpenedDb } from './pg-engines'

const PASSWORD = 'correct horse battery'
// Password hashing (argon2) is slow on a loaded 2-core machine; these tests hash a dozen times.
setDefaultTimeout(30_000)

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p
  } catch (err) {
    if (err instanceof AppError) return err
    throw err
  }
  throw new Error('expected a rejection')
}

for (const engine of ENGINES) {
  describe.skipIf(engine.skip)(`UserStore on ${engine.name}`, () => {
    let opened: OpenedDb
    let users: UserStore

    beforeAll(async () => {
      opened = await openFresh(engine.name)
      users = new UserStore(opened.db)
    })
    afterAll(async () => { await opened?.close() })

    test('create: normalised email, numbers for id and times, owners get every permission; lookups agree', async () => {
      const before = Date.now()
      const owner = await users.create({ email: '  Owner@Example.COM ', password: PASSWORD, isOwner: true })
      expect(owner.email).toBe('owner@example.com')
      expect(owner.isOwner).toBe(true)
      expect(owner.sessionEpoch).toBe(0)
      expect(typeof owner.id).toBe('number')
      expect(typeof owner.createdAt).toBe('number')
      expect(owner.createdAt).toBeGreaterThanOrEqual(before)
      expect(owner.updatedAt).toBe(owner.createdAt)
      expect(owner.permissions.users).toEqual({ read: true, write: true })

      expect(await users.findById(owner.id)).toEqual({
        id: owner.id, email: 'owner@example.com', isOwner: true, permissions: owner.permissions, sessionEpoch: 0,
      })
      expect(await users.findRecord(owner.id)).toEqual(owner)
      expect(await users.findByEmail('OWNER@example.com ')).toEqual(owner)
      expect(await users.findById(999_999)).toBeNull()
      expect(await users.findRecord(999_999)).toBeNull()
      expect(await users.findByEmail('nobody@example.com')).toBeNull()

      const row = await rawRow(opened.db, 'users', { col: 'id', value: owner.id })
      expect(row.password_hash).not.toContain(PASSWORD)
      expect(await Bun.password.verify(PASSWORD, row.password_hash)).toBe(true)
    })

    test('create: a taken email (any case) is a conflict with the same message; bad input is invalid', async () => {
      const err = await rejection(users.create({ email: 'OWNER@example.com', password: PASSWORD }))
      expect(err.code).toBe('conflict')
      expect(err.message).toBe(EMAIL_TAKEN)
      expect((await rejection(users.create({ email: 'not-an-email', password: PASSWORD }))).code).toBe('invalid')
      expect((await rejection(users.create({ email: 'short@example.com', password: 'short' }))).code).toBe('invalid')
      expect(await users.count()).toBe(1)
    })

    test('create: two at once with one email: one user, the other a conflict', async () => {
      const results = await Promise.allSettled([
        users.create({ email: 'race@example.com', password: PASSWORD }),
        users.create({ email: 'race@example.com', password: PASSWORD }),
      ])
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
      const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult
      expect(failed.reason).toBeInstanceOf(AppError)
      expect(failed.reason.code).toBe('conflict')
      expect(failed.reason.message).toBe(EMAIL_TAKEN)
      await users.remove((await users.findByEmail('race@example.com'))!.id, { actorId: null, mayRemoveOwner: true })
    })

    test('list pages in id order after a cursor; count counts', async () => {
      const made = []
      for (let i = 0; i < 4; i++) made.push(await users.create({ email: `page${i}@example.com`, password: PASSWORD, permissions: { reports: { read: true, write: false } } }))
      const all = await users.list(0, 100)
      expect(all.map((u) => u.id)).toEqual([...all.map((u) => u.id)].sort((a, b) => a - b))
      expect(all.map((u) => u.email)).toEqual(['owner@example.com', ...made.map((u) => u.email)])
      const first = await users.list(0, 2)
      expect(first.map((u) => u.email)).toEqual(['owner@example.com', 'page0@example.com'])
      const second = await users.list(first[1]!.id, 2)
      expect(second.map((u) => u.email)).toEqual(['page1@example.com', 'page2@example.com'])
      expect(await users.list(second[1]!.id, 2)).toEqual([made[3]!])
      expect(await users.list(made[3]!.id, 2)).toEqual([])
      expect(second[0]!.permissions).toEqual({ reports: { read: true, write: false } })
      expect(typeof second[0]!.createdAt).toBe('number')
      expect(await users.count()).toBe(5)
    })

    test('update: email, permissions, owner flag; a taken email and a missing user are outcomes', async () => {
      const u = (await users.findByEmail('page0@example.com'))!
      const later = u.updatedAt + 5000
      expect(await users.update(u.id, { email: 'renamed@example.com', permissions: { campaigns: { read: true, write: true } } }, later)).toBe('updated')
      const after = (await users.findRecord(u.id))!
      expect(after).toEqual({ ...u, email: 'renamed@example.com', permissions: { campaigns: { read: true, write: true } }, updatedAt: later })
      expect(await users.update(u.id, { email: 'page1@example.com' })).toBe('email_taken')
      expect((await users.findRecord(u.id))!.email).toBe('renamed@example.com')
      expect(await users.update(u.id, { email: 'renamed@example.com' })).toBe('updated') // its own email
      expect(await users.update(999_999, { email: 'x@example.com' })).toBe('not_found')
      expect(await users.update(u.id, { isOwner: true })).toBe('updated')
      expect((await users.findById(u.id))!.isOwner).toBe(true)
      expect(await users.update(u.id, { isOwner: false })).toBe('updated') // the first owner is still there
      expect((await users.findById(u.id))!.isOwner).toBe(false)
      expect((await users.findById(u.id))!.sessionEpoch).toBe(0) // no password change, no revocation
    })

    test('update: a new password hash revokes sessions (epoch + 1) and is what login checks', async () => {
      const u = (await users.findByEmail('page1@example.com'))!
      expect(await users.authenticate('page1@example.com', PASSWORD)).not.toBeNull()
      expect(await users.update(u.id, { passwordHash: await Bun.password.hash('a brand new password') })).toBe('updated')
      expect((await users.findById(u.id))!.sessionEpoch).toBe(u.sessionEpoch + 1)
      expect(await users.authenticate('page1@example.com', PASSWORD)).toBeNull()
      expect((await users.authenticate('page1@example.com', 'a brand new password'))?.id).toBe(u.id)
    })

    test('the last owner can be neither demoted nor removed; with two owners one can go', async () => {
      const owner = (await users.findByEmail('owner@example.com'))!
      expect(await users.update(owner.id, { isOwner: false })).toBe('last_owner')
      expect(await users.remove(owner.id, { actorId: null, mayRemoveOwner: true })).toBe('last_owner')
      expect((await users.findById(owner.id))!.isOwner).toBe(true)

      const second = await users.create({ email: 'owner2@example.com', password: PASSWORD, isOwner: true })
      expect(await users.remove(second.id, { actorId: second.id, mayRemoveOwner: true })).toBe('self')
      expect(await users.remove(second.id, { actorId: owner.id, mayRemoveOwner: false })).toBe('owner')
      expect(await users.update(second.id, { isOwner: false })).toBe('updated')
      expect(await users.update(second.id, { isOwner: true })).toBe('updated')
      expect(await users.remove(second.id, { actorId: owner.id, mayRemoveOwner: true })).toBe('removed')
      expect(await users.findById(second.id)).toBeNull()
      expect(await users.remove(second.id, { actorId: owner.id, mayRemoveOwner: true })).toBe('not_found')
      expect(await users.update(owner.id, { isOwner: false })).toBe('last_owner')
    })

    test('authenticate: right password (any email case) yes; wrong password or unknown email no', async () => {
      const owner = (await users.findByEmail('owner@example.com'))!
      expect(await users.authenticate(' OWNER@example.com', PASSWORD)).toEqual(await users.findById(owner.id))
      expect(await users.authenticate('owner@example.com', 'wrong password!')).toBeNull()
      expect(await users.authenticate('nobody@example.com', PASSWORD)).toBeNull()
    })

    test('revokeSessions: the epoch moves, so a cookie issued before no longer authenticates', async () => {
      const owner = (await users.findByEmail('owner@example.com'))!
      const sessions = new SessionSigner('s'.repeat(40), 3600)
      const ctx = { sessions, users } as unknown as AppContext
      const requestWith = (epoch: number) =>
        new Request('http://svc.test/admin/api/me', { headers: { cookie: `${SESSION_COOKIE}=${sessions.sign(owner.id, epoch).value}` } })

      const before = (await users.findById(owner.id))!
      expect((await authenticateAdmin(ctx, requestWith(before.sessionEpoch))).id).toBe(owner.id)
      await users.revokeSessions(owner.id)
      const after = (await users.findById(owner.id))!
      expect(after.sessionEpoch).toBe(before.sessionEpoch + 1)
      expect((await rejection(authenticateAdmin(ctx, requestWith(before.sessionEpoch)))).code).toBe('unauthorized')
      expect((await authenticateAdmin(ctx, requestWith(after.sessionEpoch))).id).toBe(owner.id)
      // A removed user's cookie dies too.
      const gone = await users.create({ email: 'gone@example.com', password: PASSWORD })
      await users.remove(gone.id, { actorId: owner.id, mayRemoveOwner: true })
      const ghost = new Request('http://svc.test/', { headers: { cookie: `${SESSION_COOKIE}=${sessions.sign(gone.id, 0).value}` } })
      expect((await rejection(authenticateAdmin(ctx, ghost))).code).toBe('unauthorized')
    })
  })
}

describe.skipIf(ENGINES[1]!.skip)('UserStore on postgres: two instances on one database', () => {
  let opened: OpenedDb
  let a: UserStore
  let b: UserStore
  const sql = () => (opened.db as PgDatabase).sql
  /** An owner inserted directly (no password hashing: these tests are about the owner checks). */
  const owner = async (email: string): Promise<{ id: number }> => {
    const [row] = await sql()`INSERT INTO users (email, password_hash, permissions, is_owner, session_epoch, created_at, updated_at)
      VALUES (${email}, 'x', '{}', 1, 0, 0, 0) RETURNING id`
    return row
  }

  beforeAll(async () => {
    opened = await openFresh('postgres')
    a = new UserStore(opened.db)
    b = new UserStore(await opened.another())
  })
  afterAll(async () => { await opened?.close() })

  test('demoting two owners at once from two instances leaves one owner', async () => {
    for (let round = 0; round < 10; round++) {
      const x = await owner(`x${round}@example.com`)
      const y = await owner(`y${round}@example.com`)
      const outcomes = await Promise.all([a.update(x.id, { isOwner: false }), b.update(y.id, { isOwner: false })])
      expect(outcomes.sort()).toEqual(['last_owner', 'updated'])
      const [row] = await sql()`SELECT count(*)::int AS n FROM users WHERE is_owner = 1`
      expect(row.n).toBe(1)
      await sql()`DELETE FROM users`
    }
  })

  test('removing two owners at once from two instances leaves one owner', async () => {
    for (let round = 0; round < 10; round++) {
      const x = await owner(`rx${round}@example.com`)
      const y = await owner(`ry${round}@example.com`)
      const by = { actorId: null, mayRemoveOwner: true }
      const outcomes = await Promise.all([a.remove(x.id, by), b.remove(y.id, by)])
      expect(outcomes.sort()).toEqual(['last_owner', 'removed'])
      expect(await a.count()).toBe(1)
      await sql()`DELETE FROM users`
    }
  })

  test('a session revoked on one instance fails on the other at once (no per-instance user cache)', async () => {
    const u = await a.create({ email: 'both@example.com', password: PASSWORD })
    expect((await b.findById(u.id))!.sessionEpoch).toBe(0)
    await a.revokeSessions(u.id)
    expect((await b.findById(u.id))!.sessionEpoch).toBe(1)
  })

  test('an email taken through the other instance is a conflict here (unique index, 23505)', async () => {
    await b.create({ email: 'taken@example.com', password: PASSWORD })
    const other = await a.create({ email: 'free@example.com', password: PASSWORD })
    expect(await a.update(other.id, { email: 'taken@example.com' })).toBe('email_taken')
    const err = await rejection(a.create({ email: 'taken@example.com', password: PASSWORD }))
    expect([err.code, err.message]).toEqual(['conflict', EMAIL_TAKEN])
  })
})
