// The lead and visitor event stores on both engines: the same expectations run against a fresh SQLite file and
// a fresh Postgres database: rows and their JS types, the insert hook in the lead's transaction (and its
// rollback), filters, paging, the newest lead of a click, and event counts per group.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/client'
import type { Tx } from '../../src/db/engine'
import { migrate } from '../../src/db/migrate'
import { openPg } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { Leads, VisitorEvents, leadStore, visitorEventStore } from '../../src/landings/store'
import type { LeadRow, LeadStore, NewLead, NewVisitorEvent, VisitorEventRow, VisitorEventStore } from '../../src/landings/store/types'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

/** The first test to ask starts the throwaway cluster (initdb); slow on a loaded machine. */
const PG_SETUP_MS = 60_000

interface Engine {
  leads: LeadStore
  events: VisitorEventStore
  /** A write the insert hook makes in the lead's transaction (a visitor event named `name`). */
  hookWrite(tx: Tx, name: string): void | Promise<void>
  /** The one number a `SELECT count(*) …` answers. */
  count(sql: string): Promise<number>
  /** The factories of store/index.ts build the one store classes on either engine. */
  factoryClasses(): [unknown, unknown]
  close(): Promise<void>
}

async function sqliteEngine(): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-landings-'))
  const database = await openDatabase(join(dir, 'svc.db'))
  migrate(database)
  const hookInsert = database.raw.prepare('INSERT INTO visitor_events (name, created_at) VALUES ($name, 0)')
  return {
    leads: new Leads(database),
    events: new VisitorEvents(database),
    hookWrite: (tx, name) => {
      expect(tx).toBeNull()
      hookInsert.run({ name })
    },
    count: async (sql) => Number(Object.values(database.raw.prepare(sql).get() as Record<string, unknown>)[0]),
    factoryClasses: () => [leadStore(database).constructor, visitorEventStore(database).constructor],
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
    leads: new Leads(db),
    events: new VisitorEvents(db),
    hookWrite: async (tx, name) => {
      expect(tx).not.toBeNull()
      await tx!`INSERT INTO visitor_events (name, created_at) VALUES (${name}, 0)`
    },
    count: async (sql) => Number(Object.values((await db.sql.unsafe(sql))[0] as Record<string, unknown>)[0]),
    factoryClasses: () => [leadStore(db).constructor, visitorEventStore(db).constructor],
    close: () => db.close(),
  }
}

const page = (limit: number, afterId = 0) => ({ limit, afterId })
const CLICK_A = '0b7f8a52-1f0e-4c43-9b53-5b7f1a3c9d01'
const CLICK_B = '0b7f8a52-1f0e-4c43-9b53-5b7f1a3c9d02'
/** 2026-01-05 23:30 UTC and, 40 minutes later, the next UTC day. */
const T1 = Date.UTC(2026, 0, 5, 23, 30)
const T2 = Date.UTC(2026, 0, 6, 0, 10)
const T3 = Date.UTC(2026, 0, 7, 12, 0)

const lead = (email: string, over: Partial<NewLead> = {}): NewLead => ({
  landingId: 1, campaignId: 10, clickId: CLICK_A, email, name: 'Ann', fields: { city: 'Oslo' }, ip: '203.0.113.5',
  userAgent: 'Mozilla/5.0', createdAt: T1, ...over,
})

const event = (name: string, over: Partial<NewVisitorEvent> = {}): NewVisitorEvent => ({
  name, clickId: CLICK_A, campaignId: 10, landingId: 1, props: null, url: 'https://lp.example.com/a', ip: '203.0.113.5', createdAt: T1, ...over,
})

/** Every numeric column is a JS number (int8 comes back from Bun SQL as a string); nulls stay null. */
function expectLeadTypes(row: LeadRow): void {
  for (const k of ['id', 'landingId', 'createdAt'] as const) expect(typeof row[k]).toBe('number')
  expect(row.campaignId === null || typeof row.campaignId === 'number').toBe(true)
  expect(typeof row.fields).toBe('string')
}

function expectEventTypes(row: VisitorEventRow): void {
  for (const k of ['id', 'createdAt'] as const) expect(typeof row[k]).toBe('number')
  for (const k of ['campaignId', 'landingId'] as const) expect(row[k] === null || typeof row[k] === 'number').toBe(true)
}

const engines: Array<[string, () => Promise<Engine>, boolean, [unknown, unknown]]> = [
  ['sqlite', sqliteEngine, true, [Leads, VisitorEvents]],
  ['postgres', pgEngine, pgAvailable().ok, [Leads, VisitorEvents]],
]

for (const [name, open, available, classes] of engines) {
  describe.skipIf(!available)(`landing stores on ${name}`, () => {
    let e: Engine
    let leads: LeadStore
    let events: VisitorEventStore
    beforeAll(async () => {
      e = await open()
      leads = e.leads
      events = e.events
    }, PG_SETUP_MS)
    afterAll(() => e?.close())

    test('the factories build the one store on either engine', () => {
      expect(e.factoryClasses()).toEqual(classes)
    })

    test('insert returns the row; the hook sees it and writes in the same transaction', async () => {
      let seen: LeadRow | undefined
      // Synchronous on SQLite (the hook runs inside the synchronous transaction), awaited on Postgres.
      const row = await leads.insert(lead('ann@example.com', { name: null, fields: { city: 'Oslo', plan: 'pro' } }), (r, tx) => {
        seen = r
        return e.hookWrite(tx, 'hook-commit')
      })
      expect(row).toEqual({
        id: row.id, landingId: 1, campaignId: 10, clickId: CLICK_A, email: 'ann@example.com', name: null,
        fields: '{"city":"Oslo","plan":"pro"}', ip: '203.0.113.5', userAgent: 'Mozilla/5.0', createdAt: T1,
      })
      expectLeadTypes(row)
      expect(seen).toEqual(row)
      expect(await leads.find(row.id)).toEqual(row)
      expect(await e.count("SELECT count(*) FROM visitor_events WHERE name = 'hook-commit'")).toBe(1)
      // Without a hook; nullable columns null.
      const bare = await leads.insert(lead('bare@example.com', { campaignId: null, clickId: null, ip: null, userAgent: null, fields: {} }))
      expect(bare).toMatchObject({ campaignId: null, clickId: null, ip: null, userAgent: null, fields: '{}' })
      expectLeadTypes(bare)
      expect(bare.id).toBeGreaterThan(row.id)
    })

    test('a hook that throws leaves no lead (and none of its own writes)', async () => {
      const before = await e.count('SELECT count(*) FROM leads')
      const fail = () => {
        throw new Error('enrolment failed')
      }
      const failed = leads.insert(lead('rollback@example.com'), (_r, tx) => {
        const wrote = e.hookWrite(tx, 'hook-rollback')
        return wrote instanceof Promise ? wrote.then(fail) : fail()
      })
      await expect(failed).rejects.toThrow('enrolment failed')
      expect(await e.count('SELECT count(*) FROM leads')).toBe(before)
      expect(await e.count("SELECT count(*) FROM leads WHERE email = 'rollback@example.com'")).toBe(0)
      expect(await e.count("SELECT count(*) FROM visitor_events WHERE name = 'hook-rollback'")).toBe(0)
      if (name === 'sqlite') {
        // SQLite runs the hook synchronously: a Promise-returning hook is refused, and rolled back.
        await expect(leads.insert(lead('async@example.com'), async () => {})).rejects.toThrow('asynchronous hook')
        expect(await e.count("SELECT count(*) FROM leads WHERE email = 'async@example.com'")).toBe(0)
      }
    })

    test('list: id order after the cursor, limit + 1 rows, every filter', async () => {
      const mk = (email: string, over: Partial<NewLead>) => leads.insert(lead(email, over))
      const a = await mk('f1@example.com', { landingId: 101, campaignId: 201, clickId: CLICK_B, createdAt: T1 })
      const b = await mk('f2@example.com', { landingId: 101, campaignId: 202, clickId: null, createdAt: T2 })
      const c = await mk('f3@example.com', { landingId: 102, campaignId: null, clickId: CLICK_B, createdAt: T3 })
      const d = await mk('f1@example.com', { landingId: 102, campaignId: 201, clickId: CLICK_B, createdAt: T3 + 1 })
      const ids = (rows: LeadRow[]) => rows.map((r) => r.id)

      const all = await leads.list({}, page(500))
      expect(ids(all)).toEqual([...ids(all)].sort((x, y) => x - y))
      for (const r of all) expectLeadTypes(r)
      expect(all.slice(-4)).toEqual([a, b, c, d])

      // Paging: limit + 1 rows from after the cursor.
      expect(await leads.list({ landingId: 101 }, page(1))).toEqual([a, b])
      expect(await leads.list({ landingId: 101 }, page(1, a.id))).toEqual([b])
      expect(await leads.list({ landingId: 101 }, page(5, b.id))).toEqual([])

      expect(ids(await leads.list({ landingId: 102 }, page(50)))).toEqual([c.id, d.id])
      expect(ids(await leads.list({ campaignId: 201 }, page(50)))).toEqual([a.id, d.id])
      expect(ids(await leads.list({ clickId: CLICK_B }, page(50)))).toEqual([a.id, c.id, d.id])
      expect(ids(await leads.list({ email: 'f1@example.com' }, page(50)))).toEqual([a.id, d.id])
      // from inclusive, to exclusive.
      expect(ids(await leads.list({ landingId: 101, from: T2 }, page(50)))).toEqual([b.id])
      expect(ids(await leads.list({ clickId: CLICK_B, to: T3 }, page(50)))).toEqual([a.id])
      expect(ids(await leads.list({ clickId: CLICK_B, from: T3, to: T3 + 1 }, page(50)))).toEqual([c.id])
      // Filters combine.
      expect(ids(await leads.list({ landingId: 102, campaignId: 201, clickId: CLICK_B, email: 'f1@example.com', from: T1, to: T3 + 2 }, page(50)))).toEqual([d.id])
      expect(await leads.list({ email: 'nobody@example.com' }, page(50))).toEqual([])
    })

    test('find and delete', async () => {
      const row = await leads.insert(lead('gone@example.com'))
      expect(await leads.find(row.id)).toEqual(row)
      expect(await leads.delete(row.id)).toBe(true)
      expect(await leads.find(row.id)).toBeUndefined()
      expect(await leads.delete(row.id)).toBe(false)
      expect(await leads.find(9_999_999)).toBeUndefined()
      expect(await leads.delete(9_999_999)).toBe(false)
    })

    test('emailOfClick: the newest lead of the click wins; null when the click has none', async () => {
      const click = '3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f'
      expect(await leads.emailOfClick(click)).toBeNull()
      await leads.insert(lead('older@example.com', { clickId: click, createdAt: T2 }))
      await leads.insert(lead('newest@example.com', { clickId: click, createdAt: T3 }))
      // Inserted last but older: the time decides, not the id.
      await leads.insert(lead('oldest@example.com', { clickId: click, createdAt: T1 }))
      await leads.insert(lead('other@example.com', { clickId: '3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4e60', createdAt: T3 + 5 }))
      expect(await leads.emailOfClick(click)).toBe('newest@example.com')
      expect(await leads.emailOfClick('3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4eff')).toBeNull()
    })

    describe('visitor events', () => {
      const inserted: VisitorEventRow[] = []
      beforeAll(async () => {
        const mk = async (n: string, over: Partial<NewVisitorEvent>) => {
          await events.insert(event(n, over))
        }
        await mk('page_view', { campaignId: 10, landingId: 1, createdAt: T1, props: null })
        await mk('page_view', { campaignId: 10, landingId: 2, createdAt: T2, clickId: CLICK_B })
        await mk('page_view', { campaignId: 11, landingId: 2, createdAt: T2 + 1 })
        await mk('signup', { campaignId: 11, landingId: 2, createdAt: T3, props: '{"plan":"pro","n":2}' })
        await mk('Zebra', { campaignId: null, landingId: null, clickId: null, url: null, ip: null, createdAt: T3 + 1 })
        await mk('alpha', { campaignId: null, landingId: 1, createdAt: T3 + 2 })
        // The hook writes of the lead tests (created_at 0) are excluded below with from: T1.
        inserted.push(...(await events.list({ from: T1 }, page(500))))
      })

      test('insert and list: rows in id order, every column, types', async () => {
        expect(inserted).toHaveLength(6)
        expect(inserted.map((r) => r.name)).toEqual(['page_view', 'page_view', 'page_view', 'signup', 'Zebra', 'alpha'])
        for (const r of inserted) expectEventTypes(r)
        expect(inserted[0]).toEqual({
          id: inserted[0]!.id, name: 'page_view', clickId: CLICK_A, campaignId: 10, landingId: 1, props: null,
          url: 'https://lp.example.com/a', ip: '203.0.113.5', createdAt: T1,
        })
        expect(inserted[3]!.props).toBe('{"plan":"pro","n":2}')
        expect(inserted[4]).toEqual({
          id: inserted[4]!.id, name: 'Zebra', clickId: null, campaignId: null, landingId: null, props: null, url: null, ip: null, createdAt: T3 + 1,
        })
      })

      test('filters and paging', async () => {
        const ids = (rows: VisitorEventRow[]) => rows.map((r) => r.id)
        const [p1, p2, p3, signup, zebra, alpha] = inserted.map((r) => r.id)
        expect(ids(await events.list({ name: 'page_view' }, page(50)))).toEqual([p1, p2, p3])
        expect(ids(await events.list({ clickId: CLICK_B }, page(50)))).toEqual([p2])
        expect(ids(await events.list({ campaignId: 11 }, page(50)))).toEqual([p3, signup])
        expect(ids(await events.list({ landingId: 1 }, page(50)))).toEqual([p1, alpha])
        expect(ids(await events.list({ from: T2, to: T3 }, page(50)))).toEqual([p2, p3])
        expect(ids(await events.list({ name: 'page_view', landingId: 2, campaignId: 10 }, page(50)))).toEqual([p2])
        // limit + 1 rows after the cursor.
        expect(ids(await events.list({ name: 'page_view' }, page(1)))).toEqual([p1, p2])
        expect(ids(await events.list({ name: 'page_view' }, page(1, p2)))).toEqual([p3])
        expect(await events.list({ name: 'page_view' }, page(1, p3))).toEqual([])
        expect(zebra).toBeGreaterThan(signup!)
      })

      test('counts per group: largest first, then by key (text byte order, the null key last); days as YYYY-MM-DD strings', async () => {
        const f = { from: T1 }
        expect(await events.count(f, 'name')).toEqual([
          { key: 'page_view', count: 3 }, { key: 'Zebra', count: 1 }, { key: 'alpha', count: 1 }, { key: 'signup', count: 1 },
        ])
        expect(await events.count(f, 'campaign')).toEqual([{ key: 10, count: 2 }, { key: 11, count: 2 }, { key: null, count: 2 }])
        expect(await events.count(f, 'landing')).toEqual([{ key: 2, count: 3 }, { key: 1, count: 2 }, { key: null, count: 1 }])
        // T1 is 23:30 UTC on the 5th, T2 00:10 on the 6th: the UTC day, whatever the server's zone.
        expect(await events.count(f, 'day')).toEqual([
          { key: '2026-01-07', count: 3 }, { key: '2026-01-06', count: 2 }, { key: '2026-01-05', count: 1 },
        ])
        // Filters apply.
        expect(await events.count({ name: 'page_view' }, 'day')).toEqual([{ key: '2026-01-06', count: 2 }, { key: '2026-01-05', count: 1 }])
        expect(await events.count({ landingId: 2, to: T3 }, 'campaign')).toEqual([{ key: 10, count: 1 }, { key: 11, count: 1 }])
        expect(await events.count({ clickId: CLICK_B }, 'name')).toEqual([{ key: 'page_view', count: 1 }])
        expect(await events.count({ name: 'nothing' }, 'name')).toEqual([])
        for (const r of await events.count(f, 'day')) expect(typeof r.count).toBe('number')
      })

      test('prune (retention): the oldest first, up to the limit, only before the cutoff', async () => {
        const old = 1_000_000
        await events.prune(old, 1000) // the lead tests' hook rows (created_at 0) go first
        for (let i = 0; i < 3; i++) await events.insert(event('old', { createdAt: old + i }))
        expect(await events.prune(old + 2, 1)).toBe(1)
        expect((await events.list({ name: 'old' }, page(50))).map((r) => r.createdAt)).toEqual([old + 1, old + 2])
        expect(await events.prune(old + 2, 100)).toBe(1)
        expect((await events.list({ name: 'old' }, page(50))).map((r) => r.createdAt)).toEqual([old + 2])
        expect((await events.list({ from: T1 }, page(500))).length).toBe(6) // newer rows untouched
      })
    })
  })
}
