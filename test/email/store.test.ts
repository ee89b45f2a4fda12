// The email store on both engines: the same expectations run against a fresh SQLite file and a fresh Postgres
// database: rows and their types, ordering, paging, idempotent enrolment, and every AppError code and message.
// Then Postgres-only: two instances (two pools) enrolling the same address at once.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { emailStore } from '../../src/email/store'
import type { EmailStore, NewSubscriber, SubscriberRow } from '../../src/email/store/types'
import type { AppError } from '../../src/lib/errors'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

/** The first test to ask starts the throwaway cluster (initdb); slow on a loaded machine. */
const PG_SETUP_MS = 60_000

interface Engine {
  store: EmailStore
  /** Inserts a landing straight in the landings table, enrolling into `emailListId`; returns its id. */
  addLanding(slug: string, emailListId: number | null): Promise<number>
  /** Runs one SQL statement straight on the database (what an operator's SQL would do). */
  exec(sql: string): Promise<void>
  /** The one number a `SELECT count(*) …` answers. */
  count(sql: string): Promise<number>
  close(): Promise<void>
}

async function sqliteEngine(): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-email-'))
  const database = await openDatabase(join(dir, 'svc.db'))
  migrate(database)
  return {
    store: emailStore(database),
    addLanding: async (slug, emailListId) => {
      const now = Date.now()
      const res = database.raw.prepare(`INSERT INTO landings (name, slug, html, email_list_id, created_at, updated_at)
        VALUES ($slug, $slug, '<p>x</p>', $emailListId, $now, $now)`).run({ slug, emailListId, now })
      return Number(res.lastInsertRowid)
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

async function pgEngine(): Promise<Engine> {
  const db = await openPg(await freshPgUrl())
  await migratePg(db)
  return {
    store: emailStore(db),
    addLanding: async (slug, emailListId) => {
      const now = Date.now()
      const [row] = await db.sql`INSERT INTO landings (name, slug, html, email_list_id, created_at, updated_at)
        VALUES (${slug}, ${slug}, '<p>x</p>', ${emailListId}::int, ${now}::bigint, ${now}::bigint) RETURNING id`
      return Number(row.id)
    },
    exec: async (sql) => {
      await db.sql.unsafe(sql)
    },
    count: async (sql) => Number(Object.values((await db.sql.unsafe(sql))[0] as Record<string, unknown>)[0]),
    close: () => db.close(),
  }
}

/** The AppError a call rejects with, as { code, message }. */
async function failure(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call
  } catch (err) {
    const e = err as AppError
    return { code: e.code, message: e.message }
  }
  throw new Error('expected the call to fail')
}

const page = (limit: number, afterId = 0) => ({ limit, afterId })
const LIST_NOT_FOUND = { code: 'not_found', message: 'email list not found' }
const SUBSCRIBER_NOT_FOUND = { code: 'not_found', message: 'subscriber not found' }
const CONSENT_AT = 1_700_000_000_123

const subscriber = (email: string, over: Partial<NewSubscriber> = {}): NewSubscriber => ({
  email, name: 'Ann', fields: { city: 'Oslo' }, source: 'lead', consentAt: CONSENT_AT, consentIp: '203.0.113.5', ...over,
})

/** Every numeric column of a subscriber row is a JS number (int8 comes back from Bun SQL as a string). */
function expectNumbers(row: SubscriberRow): void {
  for (const k of ['id', 'listId', 'consentAt', 'createdAt', 'updatedAt'] as const) expect(typeof row[k]).toBe('number')
}

const engines: Array<[string, () => Promise<Engine>, boolean]> = [
  ['sqlite', sqliteEngine, true],
  ['postgres', pgEngine, pgAvailable().ok],
]

for (const [name, open, available] of engines) {
  describe.skipIf(!available)(`email store on ${name}`, () => {
    let e: Engine
    let store: EmailStore
    beforeAll(async () => {
      e = await open()
      store = e.store
    }, PG_SETUP_MS)
    afterAll(() => e?.close())

    test('lists: create, find, list in pages, update, delete; numbers are numbers', async () => {
      const before = Date.now()
      const a = await store.createList('Newsletter')
      expect(a).toEqual({ id: a.id, name: 'Newsletter', createdAt: a.createdAt, updatedAt: a.createdAt, activeSubscribers: 0 })
      for (const k of ['id', 'createdAt', 'updatedAt', 'activeSubscribers'] as const) expect(typeof a[k]).toBe('number')
      expect(a.createdAt).toBeGreaterThanOrEqual(before)
      expect(a.createdAt).toBeLessThanOrEqual(Date.now())
      const b = await store.createList('Buyers')
      const c = await store.createList('Leads')
      expect(b.id).toBeGreaterThan(a.id)
      expect(c.id).toBeGreaterThan(b.id)
      expect(await store.findList(a.id)).toEqual(a)
      expect(await store.findList(99999)).toBeUndefined()

      // limit + 1 rows in id order, from after the cursor.
      expect(await store.listLists(page(1, a.id - 1))).toEqual([a, b])
      expect(await store.listLists(page(5, a.id))).toEqual([b, c])
      expect(await store.listLists(page(5, c.id))).toEqual([])

      await Bun.sleep(2)
      const renamed = await store.updateList(b.id, 'Buyers 2')
      expect(renamed).toEqual({ ...b, name: 'Buyers 2', updatedAt: renamed.updatedAt })
      expect(typeof renamed.updatedAt).toBe('number')
      expect(renamed.updatedAt).toBeGreaterThan(b.updatedAt)
      expect(await store.findList(b.id)).toEqual(renamed)
      expect(await failure(store.updateList(99999, 'x'))).toEqual(LIST_NOT_FOUND)

      await store.deleteList(c.id)
      expect(await store.findList(c.id)).toBeUndefined()
      expect(await failure(store.deleteList(c.id))).toEqual(LIST_NOT_FOUND)
      expect(await failure(store.deleteList(99999))).toEqual(LIST_NOT_FOUND)
      expect(await store.listLists(page(5, a.id))).toEqual([renamed])
    })

    test('activeSubscribers counts only the active subscribers of that list', async () => {
      const list = await store.createList('Counted')
      const other = await store.createList('Other')
      const [s1, s2, s3] = await Promise.all(['c1@example.com', 'c2@example.com', 'c3@example.com'].map(async (m) => (await store.enroll(list.id, subscriber(m))).row))
      await store.enroll(list.id, subscriber('c4@example.com'))
      await store.enroll(other.id, subscriber('c1@example.com'))
      expect((await store.findList(list.id))!.activeSubscribers).toBe(4)
      await e.exec(`UPDATE email_subscribers SET status = 'unsubscribed' WHERE id = ${s1!.id}`)
      await e.exec(`UPDATE email_subscribers SET status = 'bounced' WHERE id = ${s2!.id}`)
      await e.exec(`UPDATE email_subscribers SET status = 'complained' WHERE id = ${s3!.id}`)
      const found = await store.findList(list.id)
      expect(found).toEqual({ ...list, activeSubscribers: 1 })
      expect(await store.listLists(page(2, list.id - 1))).toEqual([found!, { ...other, activeSubscribers: 1 }])
      expect(await store.updateList(list.id, 'Counted 2')).toMatchObject({ name: 'Counted 2', activeSubscribers: 1 })
      expect(await store.findList(other.id)).toEqual({ ...other, activeSubscribers: 1 })
    })

    test('enroll: a new address is created with its fields as JSON text; a second enrolment keeps the first', async () => {
      const list = await store.createList('Enrol')
      const before = Date.now()
      const first = await store.enroll(list.id, subscriber('ann@example.com'))
      expect(first.created).toBe(true)
      expect(first.row).toEqual({
        id: first.row.id, listId: list.id, email: 'ann@example.com', name: 'Ann', fields: '{"city":"Oslo"}', source: 'lead',
        status: 'active', consentAt: CONSENT_AT, consentIp: '203.0.113.5', createdAt: first.row.createdAt, updatedAt: first.row.createdAt,
      })
      expectNumbers(first.row)
      expect(first.row.createdAt).toBeGreaterThanOrEqual(before)

      const again = await store.enroll(list.id, subscriber('ann@example.com', {
        name: 'Annie', fields: { city: 'Bergen', plan: 'pro' }, source: 'purchase', consentAt: CONSENT_AT + 5000, consentIp: null,
      }))
      expect(again).toEqual({ row: first.row, created: false })
      expectNumbers(again.row)
      // A status set since is kept as well.
      await e.exec(`UPDATE email_subscribers SET status = 'unsubscribed' WHERE id = ${first.row.id}`)
      expect(await store.enroll(list.id, subscriber('ann@example.com'))).toEqual({ row: { ...first.row, status: 'unsubscribed' }, created: false })

      // Nulls and an empty object.
      const bare = await store.enroll(list.id, subscriber('bare@example.com', { name: null, fields: {}, consentIp: null, source: 'manual' }))
      expect(bare).toEqual({ created: true, row: { ...bare.row, name: null, fields: '{}', consentIp: null, source: 'manual', status: 'active' } })
      expect(await e.count(`SELECT count(*) AS n FROM email_subscribers WHERE list_id = ${list.id}`)).toBe(2)
      expect(await failure(store.enroll(99999, subscriber('x@example.com')))).toEqual(LIST_NOT_FOUND)
    })

    test('the same address in two lists is two rows', async () => {
      const a = await store.createList('Two A')
      const b = await store.createList('Two B')
      const inA = await store.enroll(a.id, subscriber('both@example.com'))
      const inB = await store.enroll(b.id, subscriber('both@example.com', { name: 'Bea' }))
      expect(inA.created).toBe(true)
      expect(inB.created).toBe(true)
      expect(inB.row.id).not.toBe(inA.row.id)
      expect(inB.row).toMatchObject({ listId: b.id, email: 'both@example.com', name: 'Bea' })
      expect(await store.listSubscribers(a.id, {}, page(10))).toEqual([inA.row])
      expect(await store.listSubscribers(b.id, {}, page(10))).toEqual([inB.row])
    })

    test('listSubscribers: id order, paging, status and email filters; not_found for an unknown list', async () => {
      const list = await store.createList('Paged')
      const other = await store.createList('Paged other')
      const rows: SubscriberRow[] = []
      for (const m of ['p1@example.com', 'p2@example.com', 'p3@example.com', 'p4@example.com']) rows.push((await store.enroll(list.id, subscriber(m))).row)
      await store.enroll(other.id, subscriber('p1@example.com'))
      const [p1, p2, p3, p4] = rows as [SubscriberRow, SubscriberRow, SubscriberRow, SubscriberRow]

      const all = await store.listSubscribers(list.id, {}, page(10))
      expect(all).toEqual([p1, p2, p3, p4])
      for (const r of all) expectNumbers(r)
      // limit + 1 rows, from after the cursor.
      expect(await store.listSubscribers(list.id, {}, page(1))).toEqual([p1, p2])
      expect(await store.listSubscribers(list.id, {}, page(2, p2.id))).toEqual([p3, p4])
      expect(await store.listSubscribers(list.id, {}, page(2, p4.id))).toEqual([])

      await e.exec(`UPDATE email_subscribers SET status = 'unsubscribed' WHERE id IN (${p2.id}, ${p4.id})`)
      const u2 = { ...p2, status: 'unsubscribed' }
      const u4 = { ...p4, status: 'unsubscribed' }
      expect(await store.listSubscribers(list.id, { status: 'active' }, page(10))).toEqual([p1, p3])
      expect(await store.listSubscribers(list.id, { status: 'unsubscribed' }, page(10))).toEqual([u2, u4])
      expect(await store.listSubscribers(list.id, { status: 'unsubscribed' }, page(0, p2.id))).toEqual([u4])
      expect(await store.listSubscribers(list.id, { status: 'bounced' }, page(10))).toEqual([])
      expect(await store.listSubscribers(list.id, { email: 'p3@example.com' }, page(10))).toEqual([p3])
      expect(await store.listSubscribers(list.id, { email: 'p3@example.com', status: 'unsubscribed' }, page(10))).toEqual([])
      expect(await store.listSubscribers(list.id, { email: 'p2@example.com', status: 'unsubscribed' }, page(10))).toEqual([u2])
      expect(await store.listSubscribers(list.id, { email: 'nobody@example.com' }, page(10))).toEqual([])

      expect(await failure(store.listSubscribers(99999, {}, page(10)))).toEqual(LIST_NOT_FOUND)
      expect(await failure(store.listSubscribers(99999, { status: 'active', email: 'p1@example.com' }, page(10)))).toEqual(LIST_NOT_FOUND)
    })

    test('findSubscriber is scoped to its list', async () => {
      const a = await store.createList('Find A')
      const b = await store.createList('Find B')
      const sa = (await store.enroll(a.id, subscriber('f@example.com'))).row
      const sb = (await store.enroll(b.id, subscriber('g@example.com'))).row
      const found = await store.findSubscriber(a.id, sa.id)
      expect(found).toEqual(sa)
      expectNumbers(found!)
      expect(await store.findSubscriber(b.id, sb.id)).toEqual(sb)
      expect(await store.findSubscriber(a.id, sb.id)).toBeUndefined()
      expect(await store.findSubscriber(b.id, sa.id)).toBeUndefined()
      expect(await store.findSubscriber(a.id, 99999)).toBeUndefined()
      expect(await store.findSubscriber(99999, sa.id)).toBeUndefined()
    })

    test('removeSubscriber: gone from its list only; not_found for unknown ids and another list\'s subscriber', async () => {
      const a = await store.createList('Remove A')
      const b = await store.createList('Remove B')
      const sa = (await store.enroll(a.id, subscriber('r@example.com'))).row
      const keep = (await store.enroll(a.id, subscriber('keep@example.com'))).row
      const sb = (await store.enroll(b.id, subscriber('r@example.com'))).row

      expect(await failure(store.removeSubscriber(a.id, sb.id))).toEqual(SUBSCRIBER_NOT_FOUND)
      expect(await failure(store.removeSubscriber(a.id, 99999))).toEqual(SUBSCRIBER_NOT_FOUND)
      expect(await failure(store.removeSubscriber(99999, sa.id))).toEqual(SUBSCRIBER_NOT_FOUND)
      expect(await store.findSubscriber(b.id, sb.id)).toEqual(sb)

      expect(await store.removeSubscriber(a.id, sa.id)).toBeUndefined()
      expect(await store.findSubscriber(a.id, sa.id)).toBeUndefined()
      expect(await failure(store.removeSubscriber(a.id, sa.id))).toEqual(SUBSCRIBER_NOT_FOUND)
      expect(await store.listSubscribers(a.id, {}, page(10))).toEqual([keep])
      expect(await store.listSubscribers(b.id, {}, page(10))).toEqual([sb])
      expect((await store.findList(a.id))!.activeSubscribers).toBe(1)

      // Removed, the address can enrol again: a new row with the new consent.
      const back = await store.enroll(a.id, subscriber('r@example.com', { consentAt: CONSENT_AT + 1 }))
      expect(back.created).toBe(true)
      expect(back.row.id).toBeGreaterThan(sb.id)
      expect(back.row.consentAt).toBe(CONSENT_AT + 1)
    })

    test('deleteList takes its subscribers with it', async () => {
      const list = await store.createList('Cascade')
      const kept = await store.createList('Kept')
      const s1 = (await store.enroll(list.id, subscriber('d1@example.com'))).row
      await store.enroll(list.id, subscriber('d2@example.com'))
      const other = (await store.enroll(kept.id, subscriber('d1@example.com'))).row
      await store.deleteList(list.id)
      expect(await store.findList(list.id)).toBeUndefined()
      expect(await store.findSubscriber(list.id, s1.id)).toBeUndefined()
      expect(await e.count(`SELECT count(*) AS n FROM email_subscribers WHERE list_id = ${list.id}`)).toBe(0)
      expect(await store.listSubscribers(kept.id, {}, page(10))).toEqual([other])
      expect(await failure(store.listSubscribers(list.id, {}, page(10)))).toEqual(LIST_NOT_FOUND)
      expect(await failure(store.enroll(list.id, subscriber('d3@example.com')))).toEqual(LIST_NOT_FOUND)
    })

    test('deleteList is a conflict while a landing enrols into the list', async () => {
      const list = await store.createList('Used')
      const sub = (await store.enroll(list.id, subscriber('u@example.com'))).row
      const first = await e.addLanding('email-lp-1', list.id)
      const second = await e.addLanding('email-lp-2', list.id)
      await e.addLanding('email-lp-none', null)
      // The first landing (lowest id) is named.
      expect(await failure(store.deleteList(list.id)))
        .toEqual({ code: 'conflict', message: `email list is used by landing "email-lp-1" (id ${first})` })
      // Nothing was deleted.
      expect(await store.findList(list.id)).toEqual({ ...list, activeSubscribers: 1 })
      expect(await store.findSubscriber(list.id, sub.id)).toEqual(sub)

      await e.exec(`UPDATE landings SET email_list_id = NULL WHERE id = ${first}`)
      expect(await failure(store.deleteList(list.id)))
        .toEqual({ code: 'conflict', message: `email list is used by landing "email-lp-2" (id ${second})` })
      await e.exec(`UPDATE landings SET email_list_id = NULL WHERE id = ${second}`)
      await store.deleteList(list.id)
      expect(await store.findList(list.id)).toBeUndefined()
    })
  })
}

// Two svc instances on one database: two pools, each with its own store, enrolling at once.
describe.skipIf(!pgAvailable().ok)('email store on postgres: two instances at once', () => {
  let a: PgDatabase
  let b: PgDatabase
  let sa: EmailStore
  let sb: EmailStore
  beforeAll(async () => {
    const url = await freshPgUrl()
    a = await openPg(url)
    await migratePg(a)
    b = await openPg(url)
    sa = emailStore(a)
    sb = emailStore(b)
  }, PG_SETUP_MS)
  afterAll(async () => {
    await a?.close()
    await b?.close()
  })

  test('20 enrolments of one address at once: exactly one created, one row, every call returns it', async () => {
    const list = await sa.createList('Race')
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      (i % 2 ? sb : sa).enroll(list.id, subscriber('race@example.com', { name: `N${i}`, consentAt: CONSENT_AT + i }))))
    expect(results.filter((r) => r.created).length).toBe(1)
    const winner = results.find((r) => r.created)!.row
    for (const r of results) expect(r.row).toEqual(winner)
    expectNumbers(winner)
    expect(await sb.listSubscribers(list.id, {}, page(50))).toEqual([winner])
    expect((await sa.findList(list.id))!.activeSubscribers).toBe(1)
  })

  test('an enrolment racing the delete of its list: enrolled then deleted, or not_found (never a raw foreign-key error)', async () => {
    const outcomes = new Set<string>()
    for (let i = 0; i < 12; i++) {
      const list = await sa.createList(`Gone ${i}`)
      const [enrolled, deleted] = await Promise.allSettled([
        sa.enroll(list.id, subscriber(`gone${i}@example.com`)),
        (async () => { if (i % 2) await Bun.sleep(1); return sb.deleteList(list.id) })(),
      ])
      expect(deleted.status).toBe('fulfilled')
      if (enrolled.status === 'fulfilled') {
        expect(enrolled.value.created).toBe(true)
        outcomes.add('enrolled')
      } else {
        expect(await failure(Promise.reject(enrolled.reason))).toEqual(LIST_NOT_FOUND)
        outcomes.add('not_found')
      }
      expect(await sa.findList(list.id)).toBeUndefined()
      expect(await sa.findSubscriber(list.id, 1)).toBeUndefined()
    }
    expect(outcomes.size).toBeGreaterThan(0)
  })
})
