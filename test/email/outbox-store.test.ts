// The outbox store on both engines: the same expectations run against a fresh SQLite file and a fresh Postgres
// database: rows and their types, the job enqueued in the same transaction (and rolled back with it),
// releasing unsent messages, the queued-only transitions, the admin list with its job columns, a list's
// active subscribers and why an address may not be mailed. Then Postgres-only: two instances (two pools)
// releasing the same unsent messages at once.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { emailStore, outboxStore } from '../../src/email/store'
import type { EnqueueSend, NewMessage, OutboxRow, OutboxStore, OutboxView } from '../../src/email/store/outbox-types'
import type { EmailStore, NewSubscriber, SubscriberRow } from '../../src/email/store/types'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

/** The first test to ask starts the throwaway cluster (initdb); slow on a loaded machine. */
const PG_SETUP_MS = 60_000

interface Engine {
  store: OutboxStore
  /** The email store on the same database: lists and subscribers to send to. */
  email: EmailStore
  /** Inserts a pending `email_send` job for the outbox row through the store's transaction; its id. */
  enqueue: EnqueueSend
  /** Runs one SQL statement straight on the database (what an operator's SQL would do). */
  exec(sql: string): Promise<void>
  /** The one number a `SELECT count(*) …` answers. */
  count(sql: string): Promise<number>
  close(): Promise<void>
}

const jobPayload = (outboxId: number) => JSON.stringify({ outboxId })

async function sqliteEngine(): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-outbox-'))
  const database = await openDatabase(join(dir, 'svc.db'))
  migrate(database)
  const insertJob = database.raw.prepare(`INSERT INTO jobs (kind, payload, status, attempts, max_attempts, section, next_run_at, created_at, updated_at)
    VALUES ('email_send', $payload, 'pending', 0, 3, 'email', 0, 0, 0)`)
  return {
    store: outboxStore(database),
    email: emailStore(database),
    enqueue: (outboxId, tx) => {
      if (tx !== null) throw new Error('SQLite enqueue got a transaction')
      return Number(insertJob.run({ payload: jobPayload(outboxId) }).lastInsertRowid)
    },
    exec: async (sql) => {
      database.raw.exec(sql)
    },
    count: async (sql) => Number(Object.values(database.raw.prepare(sql).get() as Record<string, unknown>)[0]),
    close: async () => {
      database.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Postgres enqueue: the job row written through the outbox's own transaction. */
const pgEnqueue: EnqueueSend = async (outboxId, tx) => {
  if (tx === null) throw new Error('Postgres enqueue got no transaction')
  const [row] = await tx`INSERT INTO jobs (kind, payload, status, attempts, max_attempts, section, next_run_at, created_at, updated_at)
    VALUES ('email_send', ${jobPayload(outboxId)}, 'pending', 0, 3, 'email', 0, 0, 0) RETURNING id`
  return Number(row.id)
}

async function pgEngine(): Promise<Engine> {
  const db = await openPg(await freshPgUrl())
  await migratePg(db)
  return {
    store: outboxStore(db),
    email: emailStore(db),
    enqueue: pgEnqueue,
    exec: async (sql) => {
      await db.sql.unsafe(sql)
    },
    count: async (sql) => Number(Object.values((await db.sql.unsafe(sql))[0] as Record<string, unknown>)[0]),
    close: () => db.close(),
  }
}

const CONSENT_AT = 1_700_000_000_123

const subscriber = (email: string): NewSubscriber => ({
  email, name: 'Ann', fields: {}, source: 'lead', consentAt: CONSENT_AT, consentIp: null,
})

const message = (toEmail: string, over: Partial<NewMessage> = {}): NewMessage => ({
  listId: null, subscriberId: null, toEmail, subject: `Hello ${toEmail}`, textBody: 'Hi there', htmlBody: '<p>Hi there</p>', ...over,
})

/** Every numeric column of an outbox row is a JS number (int8 comes back from Bun SQL as a string). */
function expectNumbers(row: OutboxRow): void {
  for (const k of ['id', 'createdAt', 'updatedAt'] as const) expect(typeof row[k]).toBe('number')
  for (const k of ['listId', 'subscriberId', 'jobId'] as const) if (row[k] !== null) expect(typeof row[k]).toBe('number')
}

const engines: Array<[string, () => Promise<Engine>, boolean]> = [
  ['sqlite', sqliteEngine, true],
  ['postgres', pgEngine, pgAvailable().ok],
]

for (const [name, open, available] of engines) {
  describe.skipIf(!available)(`outbox store on ${name}`, () => {
    let e: Engine
    let store: OutboxStore
    beforeAll(async () => {
      e = await open()
      store = e.store
    }, PG_SETUP_MS)
    afterAll(() => e?.close())

    /** The job row of an outbox row exists, is an email_send job and names that row. */
    async function expectJobFor(row: OutboxRow): Promise<void> {
      expect(row.jobId).not.toBeNull()
      expect(await e.count(`SELECT count(*) AS n FROM jobs WHERE id = ${row.jobId} AND kind = 'email_send'
        AND payload = '${jobPayload(row.id)}'`)).toBe(1)
    }

    test('add without enqueue: unsent rows, no job, ids in order; an empty batch writes nothing', async () => {
      const list = await e.email.createList('Add unsent')
      const sub = (await e.email.enroll(list.id, subscriber('add1@example.com'))).row
      const jobsBefore = await e.count('SELECT count(*) AS n FROM jobs')
      const before = Date.now()
      const ids = await store.add([
        message('add1@example.com', { listId: list.id, subscriberId: sub.id }),
        message('add2@example.com', { htmlBody: null }),
      ], null)
      expect(ids.length).toBe(2)
      expect(ids[1]!).toBeGreaterThan(ids[0]!)
      for (const id of ids) expect(typeof id).toBe('number')

      const [a, b] = [await store.get(ids[0]!), await store.get(ids[1]!)]
      expect(a).toEqual({
        id: ids[0]!, listId: list.id, subscriberId: sub.id, toEmail: 'add1@example.com', subject: 'Hello add1@example.com',
        textBody: 'Hi there', htmlBody: '<p>Hi there</p>', status: 'unsent', jobId: null, messageId: null, result: null,
        createdAt: a!.createdAt, updatedAt: a!.createdAt,
      })
      expect(b).toEqual({
        id: ids[1]!, listId: null, subscriberId: null, toEmail: 'add2@example.com', subject: 'Hello add2@example.com',
        textBody: 'Hi there', htmlBody: null, status: 'unsent', jobId: null, messageId: null, result: null,
        createdAt: b!.createdAt, updatedAt: b!.createdAt,
      })
      expectNumbers(a!)
      expectNumbers(b!)
      expect(a!.createdAt).toBeGreaterThanOrEqual(before)
      expect(b!.createdAt).toBeLessThanOrEqual(Date.now())
      expect(await e.count('SELECT count(*) AS n FROM jobs')).toBe(jobsBefore)

      expect(await store.add([], null)).toEqual([])
      expect(await store.add([], e.enqueue)).toEqual([])
      expect(await store.get(99999)).toBeUndefined()
    })

    test('a dedup key makes add idempotent: the second add writes no row and no job, and answers the first id', async () => {
      const key = `automation-step:${Date.now()}`
      const [first] = await store.add([{ ...message('dedup@example.com'), dedupKey: key }], e.enqueue)
      const rowsBefore = await e.count('SELECT count(*) AS n FROM email_outbox')
      const jobsBefore = await e.count('SELECT count(*) AS n FROM jobs')
      // The same key again (a retried step), next to a message without a key: only the latter is written.
      const [again, other] = await store.add([{ ...message('dedup@example.com'), dedupKey: key }, message('nokey@example.com')], e.enqueue)
      expect(again).toBe(first!)
      expect(other).toBeGreaterThan(first!)
      expect(await e.count('SELECT count(*) AS n FROM email_outbox')).toBe(rowsBefore + 1)
      expect(await e.count('SELECT count(*) AS n FROM jobs')).toBe(jobsBefore + 1)
      expect(await e.count(`SELECT count(*) AS n FROM email_outbox WHERE to_email = 'dedup@example.com'`)).toBe(1)
      // Messages without a key are never merged (NULL keys are distinct).
      await store.add([message('nokey@example.com'), message('nokey@example.com')], null)
      expect(await e.count(`SELECT count(*) AS n FROM email_outbox WHERE to_email = 'nokey@example.com'`)).toBe(3)
    })

    test('add with enqueue: queued rows, each with its own job in the same transaction', async () => {
      const list = await e.email.createList('Add queued')
      const jobsBefore = await e.count('SELECT count(*) AS n FROM jobs')
      const ids = await store.add([
        message('q1@example.com', { listId: list.id }),
        message('q2@example.com', { listId: list.id }),
        message('q3@example.com'),
      ], e.enqueue)
      expect(ids.length).toBe(3)
      expect(ids[0]!).toBeLessThan(ids[1]!)
      expect(ids[1]!).toBeLessThan(ids[2]!)
      const rows = await Promise.all(ids.map(async (id) => (await store.get(id))!))
      const expected = ['q1@example.com', 'q2@example.com', 'q3@example.com'].map((to, i) => ({
        id: ids[i]!, listId: i < 2 ? list.id : null, subscriberId: null, toEmail: to, subject: `Hello ${to}`, textBody: 'Hi there',
        htmlBody: '<p>Hi there</p>', status: 'queued', jobId: rows[i]!.jobId, messageId: null, result: null,
        createdAt: rows[i]!.createdAt, updatedAt: rows[i]!.createdAt,
      }))
      expect(rows).toEqual(expected)
      for (const row of rows) {
        expectNumbers(row)
        expect(typeof row.jobId).toBe('number')
        await expectJobFor(row)
      }
      expect(new Set(rows.map((r) => r.jobId)).size).toBe(3)
      expect(await e.count('SELECT count(*) AS n FROM jobs')).toBe(jobsBefore + 3)
    })

    test('add rolls back entirely when enqueue fails: no rows, no jobs', async () => {
      const jobsBefore = await e.count('SELECT count(*) AS n FROM jobs')
      const outboxBefore = await e.count('SELECT count(*) AS n FROM email_outbox')
      let calls = 0
      const failing: EnqueueSend = (id, tx) => {
        if (++calls === 2) throw new Error('queue is down')
        return e.enqueue(id, tx)
      }
      await expect(store.add([message('rb1@example.com'), message('rb2@example.com'), message('rb3@example.com')], failing))
        .rejects.toThrow('queue is down')
      expect(calls).toBe(2)
      expect(await e.count('SELECT count(*) AS n FROM email_outbox')).toBe(outboxBefore)
      expect(await e.count(`SELECT count(*) AS n FROM email_outbox WHERE to_email LIKE 'rb%'`)).toBe(0)
      expect(await e.count('SELECT count(*) AS n FROM jobs')).toBe(jobsBefore)
    })

    test('releaseUnsent: oldest first, up to the limit, each queued with its job; 0 when none is left', async () => {
      // Whatever earlier tests left unsent goes first.
      await store.releaseUnsent(e.enqueue, 1000)
      expect(await store.releaseUnsent(e.enqueue, 10)).toBe(0)
      const jobsBefore = await e.count('SELECT count(*) AS n FROM jobs')
      const ids = await store.add(['r1', 'r2', 'r3'].map((n) => message(`${n}@example.com`)), null)
      const added = await Promise.all(ids.map(async (id) => (await store.get(id))!))
      await Bun.sleep(2)

      expect(await store.releaseUnsent(e.enqueue, 2)).toBe(2)
      const [r1, r2, r3] = await Promise.all(ids.map(async (id) => (await store.get(id))!))
      for (const [i, row] of [r1!, r2!].entries()) {
        expect(row).toEqual({ ...added[i]!, status: 'queued', jobId: row.jobId, updatedAt: row.updatedAt })
        expect(row.updatedAt).toBeGreaterThan(row.createdAt)
        expectNumbers(row)
        await expectJobFor(row)
      }
      expect(r1!.jobId).not.toBe(r2!.jobId)
      expect(r3).toEqual(added[2]!)
      expect(await e.count('SELECT count(*) AS n FROM jobs')).toBe(jobsBefore + 2)

      expect(await store.releaseUnsent(e.enqueue, 5)).toBe(1)
      const released = (await store.get(ids[2]!))!
      expect(released).toMatchObject({ status: 'queued' })
      await expectJobFor(released)
      expect(await store.releaseUnsent(e.enqueue, 5)).toBe(0)
      expect(await e.count('SELECT count(*) AS n FROM jobs')).toBe(jobsBefore + 3)
      // The ones already queued keep their jobs.
      expect(await store.get(ids[0]!)).toEqual(r1)
    })

    test('markSent and markSuppressed move only a queued message; a second call is false', async () => {
      const [sentId, suppressedId, unsentId] = [
        ...(await store.add([message('ms1@example.com'), message('ms2@example.com')], e.enqueue)),
        ...(await store.add([message('ms3@example.com')], null)),
      ] as [number, number, number]
      const queued = (await store.get(sentId))!
      await Bun.sleep(2)

      expect(await store.markSent(sentId, '<abc@svc>', '250 2.0.0 OK')).toBe(true)
      const sent = (await store.get(sentId))!
      expect(sent).toEqual({ ...queued, status: 'sent', messageId: '<abc@svc>', result: '250 2.0.0 OK', updatedAt: sent.updatedAt })
      expect(sent.updatedAt).toBeGreaterThan(queued.updatedAt)
      expectNumbers(sent)
      expect(await store.markSent(sentId, '<other@svc>', '250 again')).toBe(false)
      expect(await store.markSuppressed(sentId, 'bounced')).toBe(false)
      expect(await store.get(sentId)).toEqual(sent)

      const queued2 = (await store.get(suppressedId))!
      expect(await store.markSuppressed(suppressedId, 'unsubscribed')).toBe(true)
      const suppressed = (await store.get(suppressedId))!
      expect(suppressed).toEqual({ ...queued2, status: 'suppressed', result: 'unsubscribed', updatedAt: suppressed.updatedAt })
      expect(await store.markSuppressed(suppressedId, 'bounced')).toBe(false)
      expect(await store.markSent(suppressedId, '<x@svc>', '250')).toBe(false)
      expect(await store.get(suppressedId)).toEqual(suppressed)

      // Not queued yet (unsent), cancelled, or unknown: nothing moves.
      const unsent = (await store.get(unsentId))!
      expect(await store.markSent(unsentId, '<y@svc>', '250')).toBe(false)
      expect(await store.markSuppressed(unsentId, 'bounced')).toBe(false)
      expect(await store.get(unsentId)).toEqual(unsent)
      const [cancelledId] = await store.add([message('ms4@example.com')], e.enqueue)
      await e.exec(`UPDATE email_outbox SET status = 'cancelled' WHERE id = ${cancelledId}`)
      expect(await store.markSent(cancelledId!, '<z@svc>', '250')).toBe(false)
      expect(await store.markSuppressed(cancelledId!, 'bounced')).toBe(false)
      expect((await store.get(cancelledId!))!.status).toBe('cancelled')
      expect(await store.markSent(99999, '<n@svc>', '250')).toBe(false)
      expect(await store.markSuppressed(99999, 'bounced')).toBe(false)
    })

    test('list: newest first, filters, cursor, and the job columns', async () => {
      const list = await e.email.createList('Listed')
      const other = await e.email.createList('Listed other')
      const [u1] = await store.add([message('l1@example.com', { listId: list.id })], null)
      const [q2, q3, q4] = await store.add([
        message('l2@example.com', { listId: list.id }),
        message('l3@example.com', { listId: list.id }),
        message('l4@example.com', { listId: list.id }),
      ], e.enqueue)
      const [o5] = await store.add([message('l2@example.com', { listId: other.id })], e.enqueue)
      const row = async (id: number) => (await store.get(id))!
      const [r1, r2, r3, r4, r5] = await Promise.all([u1!, q2!, q3!, q4!, o5!].map(row))
      await e.exec(`UPDATE jobs SET status = 'failed', attempts = 2, last_error = 'relay said 451' WHERE id = ${r3!.jobId}`)
      await e.exec(`UPDATE jobs SET status = 'running', attempts = 1 WHERE id = ${r4!.jobId}`)
      const pending = { jobStatus: 'pending', jobAttempts: 0, jobLastError: null }
      const v1: OutboxView = { ...r1!, jobStatus: null, jobAttempts: null, jobLastError: null }
      const v2: OutboxView = { ...r2!, ...pending }
      const v3: OutboxView = { ...r3!, jobStatus: 'failed', jobAttempts: 2, jobLastError: 'relay said 451' }
      const v4: OutboxView = { ...r4!, jobStatus: 'running', jobAttempts: 1, jobLastError: null }
      const v5: OutboxView = { ...r5!, ...pending }

      const all = await store.list({ listId: list.id, limit: 10 })
      expect(all).toEqual([v4, v3, v2, v1])
      for (const v of all) {
        expectNumbers(v)
        if (v.jobAttempts !== null) expect(typeof v.jobAttempts).toBe('number')
      }
      // Unfiltered: the newest of the whole outbox.
      expect(await store.list({ limit: 2 })).toEqual([v5, v4])
      // Cursor: ids below `before`.
      expect(await store.list({ listId: list.id, limit: 2 })).toEqual([v4, v3])
      expect(await store.list({ listId: list.id, before: v3.id, limit: 10 })).toEqual([v2, v1])
      expect(await store.list({ listId: list.id, before: v1.id, limit: 10 })).toEqual([])
      // Filters, alone and together.
      expect(await store.list({ listId: list.id, status: 'unsent', limit: 10 })).toEqual([v1])
      expect(await store.list({ listId: list.id, status: 'queued', limit: 10 })).toEqual([v4, v3, v2])
      expect(await store.list({ toEmail: 'l2@example.com', limit: 10 })).toEqual([v5, v2])
      expect(await store.list({ toEmail: 'l2@example.com', listId: list.id, limit: 10 })).toEqual([v2])
      expect(await store.list({ toEmail: 'l2@example.com', before: v5.id, limit: 10 })).toEqual([v2])
      expect(await store.list({ listId: other.id, status: 'queued', toEmail: 'l2@example.com', limit: 10 })).toEqual([v5])
      expect(await store.list({ listId: other.id, status: 'sent', limit: 10 })).toEqual([])
      expect(await store.list({ toEmail: 'nobody@example.com', limit: 10 })).toEqual([])

      // A sent message keeps showing its (done) job.
      expect(await store.markSent(v2.id, '<l2@svc>', '250 OK')).toBe(true)
      await e.exec(`UPDATE jobs SET status = 'done', attempts = 1 WHERE id = ${v2.jobId}`)
      const [sent] = await store.list({ listId: list.id, status: 'sent', limit: 10 })
      expect(sent).toEqual({ ...(await row(v2.id)), jobStatus: 'done', jobAttempts: 1, jobLastError: null })
    })

    test('activeSubscribers: only the active ones, only of that list, in id order', async () => {
      const a = await e.email.createList('Active A')
      const b = await e.email.createList('Active B')
      const rows: SubscriberRow[] = []
      for (const m of ['a1@example.com', 'a2@example.com', 'a3@example.com', 'a4@example.com', 'a5@example.com']) {
        rows.push((await e.email.enroll(a.id, subscriber(m))).row)
      }
      const inB = (await e.email.enroll(b.id, subscriber('a1@example.com'))).row
      const [a1, a2, a3, a4, a5] = rows as [SubscriberRow, SubscriberRow, SubscriberRow, SubscriberRow, SubscriberRow]
      await e.exec(`UPDATE email_subscribers SET status = 'unsubscribed' WHERE id = ${a2.id}`)
      await e.exec(`UPDATE email_subscribers SET status = 'bounced' WHERE id = ${a4.id}`)
      await e.exec(`UPDATE email_subscribers SET status = 'complained' WHERE id = ${a5.id}`)

      const active = await store.activeSubscribers(a.id)
      expect(active).toEqual([a1, a3])
      for (const s of active) for (const k of ['id', 'listId', 'consentAt', 'createdAt', 'updatedAt'] as const) expect(typeof s[k]).toBe('number')
      expect(await store.activeSubscribers(b.id)).toEqual([inB])
      expect(await store.activeSubscribers(99999)).toEqual([])
    })

    test('suppression: bounced, then complained, anywhere; unsubscribed from this list only; else null', async () => {
      const a = await e.email.createList('Suppress A')
      const b = await e.email.createList('Suppress B')
      const set = (id: number, status: string) => e.exec(`UPDATE email_subscribers SET status = '${status}' WHERE id = ${id}`)

      // Nowhere, or active: may be mailed.
      expect(await store.suppression('nobody@example.com', a.id)).toBeNull()
      expect(await store.suppression('nobody@example.com', null)).toBeNull()
      const xa = (await e.email.enroll(a.id, subscriber('x@example.com'))).row
      const xb = (await e.email.enroll(b.id, subscriber('x@example.com'))).row
      expect(await store.suppression('x@example.com', a.id)).toBeNull()
      expect(await store.suppression('x@example.com', null)).toBeNull()

      // Unsubscribed from A: suppressed for A only (not for B, nor for a message without a list).
      await set(xa.id, 'unsubscribed')
      expect(await store.suppression('x@example.com', a.id)).toBe('unsubscribed')
      expect(await store.suppression('x@example.com', b.id)).toBeNull()
      expect(await store.suppression('x@example.com', null)).toBeNull()
      expect(await store.suppression('x@example.com', 99999)).toBeNull()

      // Complained in B: everywhere, and it beats unsubscribed.
      await set(xb.id, 'complained')
      expect(await store.suppression('x@example.com', a.id)).toBe('complained')
      expect(await store.suppression('x@example.com', b.id)).toBe('complained')
      expect(await store.suppression('x@example.com', null)).toBe('complained')

      // Bounced in B: everywhere, beating unsubscribed (in A) and complained.
      await set(xb.id, 'bounced')
      expect(await store.suppression('x@example.com', a.id)).toBe('bounced')
      expect(await store.suppression('x@example.com', null)).toBe('bounced')
      await set(xa.id, 'complained')
      expect(await store.suppression('x@example.com', a.id)).toBe('bounced')
      expect(await store.suppression('x@example.com', b.id)).toBe('bounced')

      // Another address's statuses say nothing about this one.
      const ya = (await e.email.enroll(a.id, subscriber('y@example.com'))).row
      expect(await store.suppression('y@example.com', a.id)).toBeNull()
      await set(ya.id, 'bounced')
      expect(await store.suppression('y@example.com', b.id)).toBe('bounced')
      const z = (await e.email.enroll(b.id, subscriber('z@example.com'))).row
      await set(z.id, 'complained')
      expect(await store.suppression('z@example.com', a.id)).toBe('complained')
      expect(await store.suppression('z@example.com', null)).toBe('complained')
    })
  })
}

// Two svc instances on one database: two pools, each with its own store, releasing the same messages at once.
describe.skipIf(!pgAvailable().ok)('outbox store on postgres: two instances at once', () => {
  let a: PgDatabase
  let b: PgDatabase
  let sa: OutboxStore
  let sb: OutboxStore
  beforeAll(async () => {
    const url = await freshPgUrl()
    a = await openPg(url)
    await migratePg(a)
    b = await openPg(url)
    sa = outboxStore(a)
    sb = outboxStore(b)
  }, PG_SETUP_MS)
  afterAll(async () => {
    await a?.close()
    await b?.close()
  })

  test('releaseUnsent from both at once over 50 unsent messages: each released exactly once', async () => {
    const ids = await sa.add(Array.from({ length: 50 }, (_, i) => message(`race${i}@example.com`)), null)
    expect(ids.length).toBe(50)
    const enqueued: Array<[number, number]> = []
    // Holds each transaction open a little, so the releases really overlap.
    const enqueue: EnqueueSend = async (outboxId, tx) => {
      const jobId = await pgEnqueue(outboxId, tx)
      await Bun.sleep(1)
      enqueued.push([outboxId, jobId])
      return jobId
    }
    // Four workers (two per instance), each releasing 5 at a time until nothing is left.
    const worker = async (store: OutboxStore) => {
      let total = 0
      for (let n; (n = await store.releaseUnsent(enqueue, 5)) > 0;) total += n
      return total
    }
    const counts = await Promise.all([worker(sa), worker(sb), worker(sa), worker(sb)])
    expect(counts.reduce((s, n) => s + n, 0)).toBe(50)
    expect(enqueued.length).toBe(50)
    expect(new Set(enqueued.map(([o]) => o)).size).toBe(50)
    expect(new Set(enqueued.map(([, j]) => j)).size).toBe(50)

    const jobOf = new Map(enqueued)
    const rows = await Promise.all(ids.map(async (id) => (await sb.get(id))!))
    for (const row of rows) {
      expect(row.status).toBe('queued')
      expect(row.jobId).toBe(jobOf.get(row.id)!)
    }
    expect(new Set(rows.map((r) => r.jobId)).size).toBe(50)
    const [{ n }] = await a.sql`SELECT count(*)::int AS n FROM jobs`
    expect(n).toBe(50)
    expect(await sa.releaseUnsent(enqueue, 50)).toBe(0)
    expect(await sb.releaseUnsent(enqueue, 50)).toBe(0)
  })

  test('while one instance holds its batch, the other takes the next rows without waiting (SKIP LOCKED)', async () => {
    const ids = await sa.add(Array.from({ length: 10 }, (_, i) => message(`held${i}@example.com`)), null)
    let entered!: () => void
    const inside = new Promise<void>((r) => { entered = r })
    let open!: () => void
    const gate = new Promise<void>((r) => { open = r })
    // A's transaction stops at its first enqueue, its 4 rows locked, until the gate opens.
    const held = sa.releaseUnsent(async (outboxId, tx) => {
      entered()
      await gate
      return pgEnqueue(outboxId, tx)
    }, 4)
    const taken: number[] = []
    try {
      await inside
      const other = await Promise.race([
        sb.releaseUnsent(async (outboxId, tx) => { taken.push(outboxId); return pgEnqueue(outboxId, tx) }, 100),
        Bun.sleep(5000).then(() => 'waited' as const),
      ])
      expect(other).toBe(6)
    } finally {
      open() // never leave A's transaction hanging, even when the expectation fails
    }
    expect(taken).toEqual(ids.slice(4))
    expect(await held).toBe(4)
    const rows = await Promise.all(ids.map(async (id) => (await sa.get(id))!))
    expect(rows.map((r) => r.status)).toEqual(Array(10).fill('queued'))
    expect(new Set(rows.map((r) => r.jobId)).size).toBe(10)
  })
})
