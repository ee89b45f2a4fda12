// Postbacks, conversions and conversion types at the store/batcher level, on both engines (issue 8): the
// same expectations on a fresh SQLite file and a fresh Postgres database, plus Postgres-only checks (one
// transaction per batch, async in-transaction subscribers writing through the savepoint).
// Catalog rows and clicks are inserted with plain SQL: the click store is another feature's.
import { MAX_PG_BATCH } from '../../src/postback/pg-batch'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { openDatabase, type Database } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import type { Tx } from '../../src/db/engine'
import { EventBus } from '../../src/lib/event-bus'
import { invoke, systemActor } from '../../src/lib/verb'
import type { SettingsStore } from '../../src/settings/store'
import { Aliases } from '../../src/postback/aliases'
import { PostbackBatcher } from '../../src/postback/batch'
import { ConversionTypes } from '../../src/postback/conversion-types'
import { ConversionTypesStore } from '../../src/postback/conversion-types-store'
import { PgPostbackBatcher } from '../../src/postback/pg-batch'
import { PgPostbackStore } from '../../src/postback/pg-store'
import { PostbackReceiver, type PostbackOutcome } from '../../src/postback/receive'
import { ConversionRecorder, type RecordedConversion } from '../../src/postback/record'
import { SqlitePostbackStore, type PostbackStore } from '../../src/postback/store'
import { conversionTypeVerbs } from '../../src/postback/type-verbs'
import { conversionVerbs } from '../../src/postback/verbs'
import { ConversionReads } from '../../src/postback/conversion-reads'
import { storeDb } from '../../src/db/store-db'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

const avail = pgAvailable()
if (!avail.ok) console.warn(`skipping PostgreSQL postback tests: ${avail.why}`)

type Engine = 'sqlite' | 'postgres'

/** The settings the recording path reads, held in memory (the settings store is another feature's). */
function fakeSettings(values: Record<string, unknown> = {}) {
  const v: Record<string, unknown> = { postback_dedup: false, postback_secret: null, postback_ip_allowlist: [], ...values }
  return { get: (k: string) => v[k], getJson: () => undefined, set: (k: string, x: unknown) => { v[k] = x } }
}

/** Everything a test needs on one engine: the wired postback objects and plain-SQL helpers. */
interface Harness {
  engine: Engine
  events: EventBus
  settings: ReturnType<typeof fakeSettings>
  store: PostbackStore
  /** The admin reads, written once for both engines. */
  reads: ConversionReads
  typesStore: ConversionTypesStore
  types: ConversionTypes
  recorder: ConversionRecorder
  submit(query: string, ip?: string): Promise<PostbackOutcome>
  /** A committed click of a fresh campaign/offer (payout 7.5 USD); returns its click_id. */
  addClick(): Promise<string>
  rows(sqlText: string, ...params: unknown[]): Promise<Array<Record<string, unknown>>>
  /** Postgres only: the batcher's transactions so far. */
  transactions(): number
  close(): Promise<void>
}

async function harness(engine: Engine): Promise<Harness> {
  const events = new EventBus()
  const settings = fakeSettings()
  const s = settings as unknown as SettingsStore
  const aliases = new Aliases(s)
  let store: PostbackStore, reads: ConversionReads, typesStore: ConversionTypesStore, submitter: { submit(q: string, ip: string): Promise<PostbackOutcome> }
  let rows: Harness['rows'], close: () => Promise<void>
  let begins = 0
  let types!: ConversionTypes
  if (engine === 'postgres') {
    const db: PgDatabase = await openPg(await freshPgUrl())
    await migratePg(db)
    const pg = new PgPostbackStore(db)
    const begin = pg.begin.bind(pg)
    pg.begin = (fn) => { begins++; return begin(fn) }
    store = pg
    reads = new ConversionReads(storeDb(db))
    typesStore = new ConversionTypesStore(db)
    types = new ConversionTypes(typesStore, events)
    await types.loaded()
    submitter = new PgPostbackBatcher(pg, events, new PostbackReceiver(s, aliases, types, null))
    // $1, $2… placeholders, as Postgres writes them.
    rows = async (text, ...params) => (await db.sql.unsafe(text, params as never[])) as Array<Record<string, unknown>>
    close = () => db.close()
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'svc-pb-'))
    const db: Database = await openDatabase(join(dir, 'svc.db'))
    migrate(db)
    const byClickId = db.raw.prepare('SELECT id FROM clicks WHERE click_id = $id')
    const lite = new SqlitePostbackStore(db.raw, (id) => (byClickId.get({ id }) as { id: number } | undefined)?.id)
    store = lite
    reads = new ConversionReads(storeDb(db), (id) => (byClickId.get({ id }) as { id: number } | undefined)?.id)
    typesStore = new ConversionTypesStore(db)
    types = new ConversionTypes(typesStore, events)
    submitter = new PostbackBatcher(lite, events, new PostbackReceiver(s, aliases, types, lite))
    rows = async (text, ...params) => {
      // $1, $2… → ?1, ?2… (bun:sqlite numbered parameters).
      const client = (db.db as unknown as { $client: { prepare(s: string): { all(...p: unknown[]): unknown[] } } }).$client
      const stmt = client.prepare(text.replace(/\$(\d+)/g, '?$1'))
      return stmt.all(...params) as Array<Record<string, unknown>>
    }
    close = async () => {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
  const recorder = new ConversionRecorder(store, events)
  let seq = 0
  return {
    engine, events, settings, store, reads, typesStore, types, recorder,
    submit: (q, ip = '198.51.100.1') => submitter.submit(q, ip),
    async addClick() {
      const n = ++seq
      const now = Date.now()
      const [src] = await rows("INSERT INTO sources (name, postback_url, created_at, updated_at) VALUES ($1, 'https://src.example/pb?c={click_id}', $2, $2) RETURNING id", `source ${n}`, now)
      const [offer] = await rows("INSERT INTO offers (name, slug, url, payout, currency, created_at, updated_at) VALUES ($1, $1, 'https://adv.example/', 7.5, 'USD', $2, $2) RETURNING id", `offer-${n}`, now)
      const [camp] = await rows('INSERT INTO campaigns (name, slug, source_id, external_id, active, created_at, updated_at) VALUES ($1, $1, $2, NULL, 1, $3, $3) RETURNING id', `campaign-${n}`, src!.id, now)
      const clickId = randomUUID()
      await rows('INSERT INTO clicks (click_id, campaign_id, source_id, offer_id, landing_id, ip, created_at) VALUES ($1, $2, $3, $4, NULL, $5, $6)', clickId, camp!.id, src!.id, offer!.id, '203.0.113.7', now)
      return clickId
    },
    rows,
    transactions: () => begins,
    close,
  }
}

const count = async (h: Harness, table: string, where = 'TRUE', ...params: unknown[]) =>
  Number((await h.rows(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, ...params))[0]!.n)

for (const engine of ['sqlite', 'postgres'] as const) {
  describe.skipIf(engine === 'postgres' && !avail.ok)(`postbacks on ${engine}`, () => {
    let h: Harness
    beforeAll(async () => { h = await harness(engine) }, 120_000)
    afterAll(async () => { await h?.close() })

    test('20 postbacks in one turn: all recorded, with their rows; on Postgres in transactions of MAX_PG_BATCH side by side', async () => {
      const clicks = await Promise.all(Array.from({ length: 20 }, () => h.addClick()))
      const txids: string[] = []
      if (engine === 'postgres') {
        // The top-level transaction id seen from inside each postback's savepoint.
        h.events.on('conversion.recorded', 'in-transaction', 'test.txid', async (_c, tx: Tx) => {
          if (tx) txids.push(String((await tx`SELECT txid_current() AS x`)[0].x))
        })
      }
      const before = h.transactions()
      const outcomes = await Promise.all(clicks.map((id, i) => h.submit(`subid=${id}&payout=${i + 1}&status=approved`)))
      expect(outcomes.map((o) => o.kind)).toEqual(clicks.map(() => 'recorded'))
      for (const [i, id] of clicks.entries()) {
        const [row] = await h.rows('SELECT * FROM conversions WHERE click_id = $1', id)
        expect(row).toMatchObject({ revenue: i + 1, type: 'sale', status: 'approved', currency: 'USD' })
        // The click's created_at travels with the conversion (Postgres finds the click's day partition by it).
        const [times] = await h.rows('SELECT v.click_created_at AS a, k.created_at AS b FROM conversions v JOIN clicks k ON k.id = v.click_row_id WHERE v.click_id = $1', id)
        expect(Number(times!.a)).toBe(Number(times!.b))
        expect(Number(times!.a)).toBeGreaterThan(0)
      }
      if (engine === 'postgres') {
        // MAX_PG_BATCH, MAX_PG_BATCH… and the rest: each transaction holds the postbacks it was given, in turn.
        expect(h.transactions() - before).toBe(Math.ceil(20 / MAX_PG_BATCH))
        expect(txids).toHaveLength(20)
        expect(new Set(txids).size).toBe(Math.ceil(20 / MAX_PG_BATCH))
        const perTx = new Map<string, number>()
        for (const t of txids) perTx.set(t, (perTx.get(t) ?? 0) + 1)
        const sizes = Array.from({ length: Math.ceil(20 / MAX_PG_BATCH) }, (_, i) => Math.min(MAX_PG_BATCH, 20 - i * MAX_PG_BATCH))
        expect([...perTx.values()].sort((a, b) => b - a)).toEqual(sizes)
      }
    })

    test('with postback_dedup, the same click and tid again is ignored as duplicate, with an error row', async () => {
      h.settings.set('postback_dedup', true)
      try {
        const id = await h.addClick()
        expect(await h.submit(`subid=${id}&tid=T-1`)).toMatchObject({ kind: 'recorded' })
        // In one batch too: the second sees the first inside the same transaction.
        const [a, b] = await Promise.all([h.submit(`subid=${id}&tid=T-1`), h.submit(`subid=${id}&tid=T-2`)])
        expect(a).toEqual({ kind: 'ignored', reason: 'duplicate' })
        expect(b).toMatchObject({ kind: 'recorded' })
        expect(await count(h, 'conversions', 'click_id = $1', id)).toBe(2)
        expect(await count(h, 'postback_errors', "reason = 'duplicate' AND click_id = $1", id)).toBe(1)
      } finally {
        h.settings.set('postback_dedup', false)
      }
    })

    test('an unknown click records an error row, no conversion', async () => {
      const id = randomUUID()
      expect(await h.submit(`subid=${id}&payout=3`)).toEqual({ kind: 'ignored', reason: 'unknown_click' })
      const errs = await h.reads.listErrors({ reason: 'unknown_click', limit: 5 })
      expect(errs[0]).toMatchObject({ reason: 'unknown_click', click_id: id, query: `subid=${id}&payout=3`, ip: '198.51.100.1', conversion_id: null })
      expect(typeof errs[0]!.id).toBe('number')
      expect(typeof errs[0]!.created_at).toBe('number')
      expect(await count(h, 'conversions', 'click_id = $1', id)).toBe(0)
    })

    test('a warning row carries the recorded conversion id (a number)', async () => {
      const id = await h.addClick()
      const o = await h.submit(`subid=${id}&payout=12abc`)
      expect(o.kind).toBe('recorded')
      const conversionId = (o as { conversionId: number }).conversionId
      const [err] = await h.reads.listErrors({ reason: 'payout_unreadable', limit: 1 })
      expect(err).toMatchObject({ click_id: id, conversion_id: conversionId })
      expect(await h.reads.conversionById(conversionId)).toMatchObject({ id: conversionId, revenue: 7.5, click_id: id })
    })

    test('every 1000th error row prunes rows more than POSTBACK_ERRORS_KEEP back', async () => {
      for (const id of [5, 1500, 101_999]) {
        await h.rows("INSERT INTO postback_errors (id, reason, query, created_at) VALUES ($1, 'unknown_click', '', 0)", id)
      }
      if (engine === 'postgres') await h.rows('ALTER SEQUENCE postback_errors_id_seq RESTART WITH 102000')
      await h.store.recordError('unknown_click', null, 'q', '198.51.100.9', Date.now())
      const ids = (await h.rows('SELECT id FROM postback_errors WHERE id IN (5, 1500, 101999, 102000) ORDER BY id')).map((r) => Number(r.id))
      expect(ids).toEqual([101_999, 102_000])
    })

    test('a postback whose in-transaction subscriber throws rolls back alone; after-commit hears only the committed', async () => {
      await h.rows('CREATE TABLE IF NOT EXISTS pb_probe (tid TEXT)')
      const heard: string[] = []
      h.events.on('conversion.recorded', 'in-transaction', 'test.probe', engine === 'postgres'
        ? async (c: RecordedConversion, tx: Tx) => {
          await tx!`INSERT INTO pb_probe (tid) VALUES (${c.transactionId})`
          if (c.transactionId === 'boom') throw new Error('boom')
        }
        : (c: RecordedConversion) => {
          void h.rows('INSERT INTO pb_probe (tid) VALUES ($1)', c.transactionId)
          if (c.transactionId === 'boom') throw new Error('boom')
        })
      h.events.on('conversion.recorded', 'after-commit', 'test.heard', (c) => { if (c.transactionId?.startsWith('rb-') || c.transactionId === 'boom') heard.push(c.transactionId!) })
      const clicks = await Promise.all(Array.from({ length: 5 }, () => h.addClick()))
      const tids = ['rb-0', 'rb-1', 'boom', 'rb-3', 'rb-4']
      const results = await Promise.allSettled(clicks.map((id, i) => h.submit(`subid=${id}&tid=${tids[i]}`)))
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'])
      expect(String((results[2] as PromiseRejectedResult).reason)).toContain('boom')
      for (const [i, id] of clicks.entries()) expect(await count(h, 'conversions', 'click_id = $1', id)).toBe(i === 2 ? 0 : 1)
      expect((await h.rows("SELECT tid FROM pb_probe WHERE tid LIKE 'rb-%' OR tid = 'boom' ORDER BY tid")).map((r) => r.tid)).toEqual(['rb-0', 'rb-1', 'rb-3', 'rb-4'])
      expect(heard.sort()).toEqual(['rb-0', 'rb-1', 'rb-3', 'rb-4'])
    })

    test('conversions.record verb: recorded in its own transaction, 409 on a duplicate, 404 on an unknown click', async () => {
      const verbs = conversionVerbs({ store: h.store, reads: h.reads, recorder: h.recorder, types: h.types, aliases: new Aliases(h.settings as never), settings: h.settings as never, events: h.events })
      const actor = systemActor('test')
      const id = await h.addClick()
      const heard: number[] = []
      h.events.on('conversion.recorded', 'after-commit', 'test.verb', (c) => { if (c.clickId === id) heard.push(c.id) })
      const rec = await invoke(verbs.record, actor, { click_id: id.toUpperCase(), status: 'lead', transaction_id: 'V-1', revenue: 4 })
      expect(rec).toMatchObject({ click_id: id, type: 'lead', revenue: 4, currency: 'USD', transaction_id: 'V-1' })
      expect(heard).toEqual([rec.id])
      h.settings.set('postback_dedup', true)
      try {
        await expect(invoke(verbs.record, actor, { click_id: id, transaction_id: 'V-1' })).rejects.toMatchObject({ code: 'conflict' })
      } finally {
        h.settings.set('postback_dedup', false)
      }
      await expect(invoke(verbs.record, actor, { click_id: randomUUID() })).rejects.toMatchObject({ code: 'not_found' })
      expect(await invoke(verbs.get, actor, { id: rec.id })).toEqual({
        ...rec, status_history: [{ type: 'lead', status: 'lead', revenue: 4, at: rec.created_at, reversal_id: null }],
      })
      const page = await invoke(verbs.list, actor, { click_id: id, type: 'lead' })
      expect(page.items).toEqual([rec])
    })

    test('listConversions: newest first, filters and cursor; numbers come back as numbers', async () => {
      const id = await h.addClick()
      for (const p of [1, 2, 3]) await h.submit(`subid=${id}&payout=${p}&date=${1_700_000_000 + p}`)
      const all = await h.reads.listConversions({ clickId: id, limit: 10 })
      expect(all.map((r) => r.revenue)).toEqual([3, 2, 1])
      for (const k of ['id', 'click_row_id', 'campaign_id', 'date', 'created_at'] as const) expect(typeof all[0]![k]).toBe('number')
      expect((await h.reads.listConversions({ clickId: id, before: all[0]!.id, limit: 1 })).map((r) => r.revenue)).toEqual([2])
      expect((await h.reads.listConversions({ clickId: id, from: 1_700_000_002_000, to: 1_700_000_003_000, limit: 10 })).map((r) => r.revenue)).toEqual([2])
      expect(await h.reads.listConversions({ clickId: id, campaignId: all[0]!.campaign_id + 1000, limit: 10 })).toEqual([])
    })

    test('conversion types CRUD and the status map; the cache follows every change', async () => {
      const tv = conversionTypeVerbs({ store: h.typesStore, types: h.types, events: h.events })
      const actor = systemActor('test')
      expect((await invoke(tv.list, actor, {})).items.map((t) => t.slug)).toEqual(['chargeback', 'install', 'lead', 'reject', 'sale', 'trial'])
      expect(h.types.resolve('Approved').slug).toBe('sale')
      const created = await invoke(tv.create, actor, { slug: 'upsell', name: 'Upsell', include_in_revenue: false })
      expect(created).toMatchObject({ slug: 'upsell', name: 'Upsell', include_in_conversions: true, include_in_revenue: false, builtin: false })
      await expect(invoke(tv.create, actor, { slug: 'upsell', name: 'Again' })).rejects.toMatchObject({ code: 'conflict' })
      expect(await invoke(tv.update, actor, { slug: 'upsell', changes: { name: 'Up-sell' } })).toMatchObject({ name: 'Up-sell' })
      expect(await invoke(tv.replaceStatusMap, actor, { Approved: 'sale', UP: 'upsell' })).toEqual({ approved: 'sale', up: 'upsell' })
      expect(h.types.resolve('up').slug).toBe('upsell')
      expect(h.types.resolve('pending').slug).toBe('sale') // no longer mapped
      await expect(invoke(tv.delete, actor, { slug: 'upsell' })).rejects.toMatchObject({ code: 'conflict' }) // mapped
      const id = await h.addClick()
      expect(await h.submit(`subid=${id}&status=up`)).toMatchObject({ kind: 'recorded' })
      expect((await h.rows('SELECT type FROM conversions WHERE click_id = $1', id))[0]!.type).toBe('upsell')
      await invoke(tv.replaceStatusMap, actor, { approved: 'sale' })
      await expect(invoke(tv.delete, actor, { slug: 'upsell' })).rejects.toThrow('used by 1 conversion(s)')
      await h.rows("DELETE FROM conversions WHERE type = 'upsell'")
      expect(await invoke(tv.delete, actor, { slug: 'upsell' })).toEqual({ ok: true })
      expect(h.types.has('upsell')).toBe(false)
      await expect(invoke(tv.delete, actor, { slug: 'sale' })).rejects.toMatchObject({ code: 'conflict' })
      // Numbers and flags as on SQLite.
      const [row] = await h.typesStore.loadTypes()
      expect(typeof row!.created_at).toBe('number')
      expect(row!.builtin).toBe(1)
    })
  })
}

describe.skipIf(!avail.ok)('postbacks on postgres only', () => {
  test('reload() brings another instance\'s change into this cache', async () => {
    const url = await freshPgUrl()
    const a = await openPg(url)
    await migratePg(a)
    const b = await openPg(url)
    try {
      const busA = new EventBus()
      const typesA = new ConversionTypes(new ConversionTypesStore(a), busA)
      const busB = new EventBus()
      const typesB = new ConversionTypes(new ConversionTypesStore(b), busB)
      await Promise.all([typesA.loaded(), typesB.loaded()])
      const tv = conversionTypeVerbs({ store: new ConversionTypesStore(a), types: typesA, events: busA })
      await invoke(tv.replaceStatusMap, systemActor('test'), { ok: 'lead' })
      expect(typesA.resolve('ok').slug).toBe('lead')
      expect(typesB.resolve('ok').slug).toBe('sale')
      await typesB.reload()
      expect(typesB.resolve('ok').slug).toBe('lead')
    } finally {
      await a.close()
      await b.close()
    }
  })
})
