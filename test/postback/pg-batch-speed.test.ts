// The Postgres postback batch's fast paths (pg-batch-queries.ts: one click lookup for the batch, conversion
// ids drawn with it, one multi-row insert; pg-batch.ts: the whole batch as ONE statement when no postback
// needs a transaction) against one-by-one processing: the same mixed postbacks give the same answers and the
// same rows whether they share a batch or each has a transaction of its own; money is never counted twice
// when a path falls back to the next. Postgres only.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { randomUUID } from 'node:crypto'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { EventBus } from '../../src/lib/event-bus'
import type { SettingsStore } from '../../src/settings/store'
import { Aliases } from '../../src/postback/aliases'
import { ConversionTypes } from '../../src/postback/conversion-types'
import { ConversionTypesStore } from '../../src/postback/conversion-types-store'
import { MAX_PG_BATCH, PG_BATCHES_IN_FLIGHT, PgPostbackBatcher } from '../../src/postback/pg-batch'
import { PgPostbackStore } from '../../src/postback/pg-store'
import { PgJobStore } from '../../src/jobs/pg-store'
import { newPgClickId } from '../../src/tracking/store/pg-partitions'
import { PgConversionRollup } from '../../src/postback/pg-rollup'
import { PostbackReceiver, type PostbackOutcome } from '../../src/postback/receive'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

const avail = pgAvailable()
const skip = process.env.SVC_TEST_ENGINE !== 'postgres' || !avail.ok

let db: PgDatabase
let batcher: PgPostbackBatcher
let begins = 0
/** Transactions of the batcher open now, and the most seen at once. */
let open = 0
let mostOpen = 0
const sizes: number[] = []
/** Set by a test: the before-commit subscriber then also writes with a tagged template (not gatherable). */
let taggedWrite: string | null = null
const settings: Record<string, unknown> = { postback_dedup: true, postback_secret: null, postback_ip_allowlist: [] }
const rows = async (text: string, ...params: unknown[]) => (await db.sql.unsafe(text, params as never[])) as Array<Record<string, unknown>>

beforeAll(async () => {
  if (skip) return
  db = await openPg(await freshPgUrl())
  await migratePg(db)
  const s = { get: (k: string) => settings[k], getJson: () => undefined, set: (k: string, v: unknown) => { settings[k] = v } } as unknown as SettingsStore
  const events = new EventBus()
  const types = new ConversionTypes(new ConversionTypesStore(db), events)
  await types.loaded()
  // The conversion rollup as the app wires it (reports feature): the money per currency is checked below.
  const rollup = new PgConversionRollup()
  events.on('conversion.recorded', 'before-commit', 'test.rollup', (cs, tx) => rollup.addAll(cs as never, tx))
  // A job per conversion, as the forward subscriber writes them (one insertMany through the batch's handle).
  const jobs = new PgJobStore(db)
  events.on('conversion.recorded', 'before-commit', 'test.jobs', (cs, tx) => jobs.insertMany((cs as Array<{ id: number }>).map((c) => ({
    kind: 'test.forward', payload: { conversion_id: c.id }, maxAttempts: 1, section: 'conversions', ref: `conv-${c.id}`, runAt: 0, now: Date.now(),
  })), tx).then(() => {}))
  events.on('conversion.recorded', 'before-commit', 'test.tagged', async (_cs, tx) => {
    if (taggedWrite !== null) await tx!`INSERT INTO postback_errors (reason, query, ip, created_at) VALUES ('test', ${taggedWrite}, '-', 0)`
  })
  const store = new PgPostbackStore(db)
  const begin = store.begin.bind(store)
  store.begin = async (fn) => {
    begins++
    return begin(fn)
  }
  events.on('conversion.recorded', 'before-commit', 'test.sizes', (cs) => void sizes.push((cs as unknown[]).length))
  batcher = new PgPostbackBatcher(store, events, new PostbackReceiver(s, new Aliases(s), types, null))
  // Batches running at once, whatever their path.
  const b = batcher as unknown as { run: (batch: unknown[]) => Promise<void> }
  const run = b.run.bind(batcher)
  b.run = async (batch) => {
    mostOpen = Math.max(mostOpen, ++open)
    try {
      return await run(batch)
    } finally {
      open--
    }
  }
  // A conversion insert that fails for one postback (a database error, not a rule): that postback alone gets a 500.
  await rows(`CREATE FUNCTION refuse_conversion() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'refused by test trigger'; END $$`)
  await rows(`CREATE TRIGGER refuse_conversion BEFORE INSERT ON conversions FOR EACH ROW
    WHEN (NEW.transaction_id = 'raise-me') EXECUTE FUNCTION refuse_conversion()`)
}, 120_000)
afterAll(async () => { await db?.close() })

/** A committed click of a fresh campaign whose offer pays `payout` in `currency`; returns its click_id and campaign. */
async function addClick(currency: string, payout: number, dayId = false): Promise<{ clickId: string; campaign: number }> {
  const now = Date.now()
  const n = randomUUID()
  const [src] = await rows("INSERT INTO sources (name, postback_url, created_at, updated_at) VALUES ($1, NULL, $2, $2) RETURNING id", `s-${n}`, now)
  const [offer] = await rows("INSERT INTO offers (name, slug, url, payout, currency, created_at, updated_at) VALUES ($1, $1, 'https://adv.example/', $2, $3, $4, $4) RETURNING id", `o-${n}`, payout, currency, now)
  const [camp] = await rows('INSERT INTO campaigns (name, slug, source_id, active, created_at, updated_at) VALUES ($1, $1, $2, 1, $3, $3) RETURNING id', `c-${n}`, src!.id, now)
  // As svc makes them (the day in the id: found by the batch's one lookup), or a random one (an id from before the partitions).
  const clickId = dayId ? newPgClickId(now) : randomUUID()
  await rows('INSERT INTO clicks (click_id, campaign_id, source_id, offer_id, ip, created_at) VALUES ($1, $2, $3, $4, $5, $6)', clickId, camp!.id, src!.id, offer!.id, '203.0.113.7', now)
  return { clickId, campaign: Number(camp!.id) }
}

/**
 * The mixed postbacks of one case, on fresh clicks: a click with the same tid twice (the second a duplicate
 * within the batch), an unknown click, a EUR and a USD offer, a payout that needs a warning row, a missing
 * click id, and (`failing`) one whose conversion insert the trigger refuses.
 */
async function scenario(failing: boolean) {
  const usd = await addClick('USD', 7.5)
  const eur = await addClick('EUR', 4)
  const warn = await addClick('USD', 2)
  const bad = await addClick('USD', 1)
  const queries = [
    `subid=${usd.clickId}&tid=T-1&payout=10`,
    `subid=${eur.clickId}&payout=3.25&status=approved`,
    `subid=${randomUUID()}&payout=5`,
    `subid=${usd.clickId}&tid=T-1&payout=10`,
    `subid=${warn.clickId}&payout=12abc&tid=W`,
    ...(failing ? [`subid=${bad.clickId}&tid=raise-me`] : []),
    `payout=1&ref=${randomUUID()}`,
    `subid=${eur.clickId}&tid=E-2`,
  ]
  return { queries, clicks: [usd, eur, warn, bad] }
}

type Answer = { ok: true; outcome: PostbackOutcome } | { ok: false; error: string }

const answer = (p: Promise<PostbackOutcome>): Promise<Answer> =>
  p.then((outcome) => ({ ok: true as const, outcome }), (e) => ({ ok: false as const, error: String(e) }))

/** What a case left behind, with ids replaced by the position of their conversion, so two cases compare. */
async function outcome(answers: Answer[], clicks: Array<{ clickId: string; campaign: number }>, queries: string[]) {
  const ids = clicks.map((c) => c.clickId)
  const conv = await rows(
    'SELECT id, click_id, type, status, revenue, currency, cost, transaction_id, postback_query FROM conversions WHERE click_id = ANY($1::text[]) ORDER BY id', ids)
  const pos = new Map(conv.map((r, i) => [Number(r.id), i]))
  const name = (clickId: unknown) => (clickId === null ? null : ids.indexOf(String(clickId)))
  const errors = await rows(
    'SELECT reason, click_id, conversion_id, query FROM postback_errors WHERE query = ANY($1::text[]) ORDER BY id', queries)
  const money = await rows(
    'SELECT currency, sum(conversions)::int AS n, sum(revenue) AS revenue FROM conversion_stats_hourly WHERE campaign_id = ANY($1::int[]) GROUP BY currency ORDER BY currency',
    clicks.map((c) => c.campaign))
  return {
    answers: answers.map((a) => (a.ok
      ? (a.outcome.kind === 'recorded' ? { kind: 'recorded', conversion: pos.get(a.outcome.conversionId) } : a.outcome)
      : { error: a.error })),
    conversions: conv.map(({ id: _, click_id, ...r }) => ({ ...r, click: name(click_id), postback_query: String(r.postback_query).replace(/[0-9a-f-]{36}/g, 'ID') })),
    // Sorted: the error rows of postbacks that arrive together have no order (a batch writes an ignored one's first).
    errors: errors
      .map((e) => ({ reason: String(e.reason), click: e.click_id === null ? null : name(e.click_id), conversion: e.conversion_id === null ? null : pos.get(Number(e.conversion_id)) }))
      .sort((p, q) => p.reason.localeCompare(q.reason)),
    money,
  }
}

describe.skipIf(skip)('Postgres postback batch, set-based path', () => {
  for (const failing of [false, true]) {
    test(`one batch gives the answers and rows of one-by-one processing${failing ? ', a failing insert getting the only 500' : ''}`, async () => {
      const a = await scenario(failing)
      expect(a.queries.length).toBeLessThanOrEqual(MAX_PG_BATCH)
      const before = begins
      const batched = await Promise.all(a.queries.map((q, i) => answer(batcher.submit(q, `198.51.100.${i + 1}`))))
      // One transaction; with a failing postback a second one, each postback in its own savepoint.
      expect(begins - before).toBe(failing ? 2 : 1)

      const b = await scenario(failing)
      const oneByOne: Answer[] = []
      for (const [i, q] of b.queries.entries()) oneByOne.push(await answer(batcher.submit(q, `198.51.100.${i + 1}`)))

      const x = await outcome(batched, a.clicks, a.queries)
      const y = await outcome(oneByOne, b.clicks, b.queries)
      expect(x).toEqual(y)
      // What one-by-one gives, spelled out (so that the comparison cannot pass on two equally wrong runs).
      expect(y.answers.map((r) => { const a = r as { error?: string; kind?: string; reason?: string }; return a.error ? '500' : a.kind === 'ignored' ? a.reason : 'recorded' })).toEqual([
        'recorded', 'recorded', 'unknown_click', 'duplicate', 'recorded', ...(failing ? ['500'] : []), 'missing_click_id', 'recorded',
      ])
      expect(y.conversions.map((r) => { const c = r as Record<string, unknown>; return [c.click, c.revenue, c.currency] })).toEqual([[0, 10, 'USD'], [1, 3.25, 'EUR'], [2, 2, 'USD'], [1, 4, 'EUR']])
      expect(y.money).toEqual([{ currency: 'EUR', n: 2, revenue: 7.25 }, { currency: 'USD', n: 2, revenue: 12 }])
      expect(y.errors.map((e) => e.reason)).toEqual(['duplicate', 'missing_click_id', 'payout_unreadable', 'unknown_click'])
      expect(y.errors.find((e) => e.reason === 'payout_unreadable')!.conversion).toBe(2)
    })
  }

  test('the same click and tid many times at once, in batches side by side: one conversion', async () => {
    const { clickId } = await addClick('USD', 5)
    const n = MAX_PG_BATCH * 3
    const answers = await Promise.all(Array.from({ length: n }, () => batcher.submit(`subid=${clickId}&tid=SAME`, '198.51.100.9')))
    expect(answers.filter((o) => o.kind === 'recorded')).toHaveLength(1)
    expect(answers.filter((o) => o.kind === 'ignored' && o.reason === 'duplicate')).toHaveLength(n - 1)
    expect(Number((await rows('SELECT count(*) AS n FROM conversions WHERE click_id = $1', clickId))[0]!.n)).toBe(1)
  })

  test(`at most ${PG_BATCHES_IN_FLIGHT} batches commit at once; postbacks arriving meanwhile wait and go together in the next`, async () => {
    settings.postback_dedup = false
    try {
      const { clickId } = await addClick('USD', 5)
      const submit = () => batcher.submit(`subid=${clickId}&payout=1`, '198.51.100.9')
      const [b0, s0] = [begins, sizes.length]
      const one0 = batcher.paths.oneStatement
      mostOpen = 0
      // One turn: more than the slots can take; the rest waits for the first batch to finish.
      const first = Array.from({ length: MAX_PG_BATCH * PG_BATCHES_IN_FLIGHT + 10 }, submit)
      // Three later turns while both slots are still committing: they gather into one waiting batch.
      const later: Array<Promise<PostbackOutcome>> = []
      for (let turn = 0; turn < 3; turn++) {
        await new Promise((r) => setImmediate(r))
        for (let i = 0; i < 5; i++) later.push(submit())
      }
      const answers = await Promise.all([...first, ...later])
      expect(answers.every((o) => o.kind === 'recorded')).toBe(true)
      expect(mostOpen).toBe(PG_BATCHES_IN_FLIGHT)
      // The slots' batches, then the 10 left of the first turn with the 15 that came later: one batch. (Sorted:
      // sizes are noted when a batch's lookup has answered, and the slots' lookups may answer in either order,
      // even after the third batch's on a loaded machine.)
      expect(sizes.slice(s0).sort((a, b) => b - a)).toEqual([...Array.from({ length: PG_BATCHES_IN_FLIGHT }, () => MAX_PG_BATCH), 25])
      // Many conversions of one click, no tid: each batch is one statement, no transaction.
      expect(begins - b0).toBe(0)
      expect(batcher.paths.oneStatement - one0).toBe(PG_BATCHES_IN_FLIGHT + 1)
      expect(Number((await rows('SELECT count(*) AS n FROM conversions WHERE click_id = $1', clickId))[0]!.n)).toBe(answers.length)
    } finally {
      settings.postback_dedup = true
    }
  })

  test('a recorded answer names its own conversion, even for a click asked for twice in one batch', async () => {
    settings.postback_dedup = false
    try {
      const { clickId } = await addClick('USD', 5)
      const answers = await Promise.all([1, 2, 3].map((p) => batcher.submit(`subid=${clickId}&payout=${p}`, '198.51.100.9')))
      const got = await Promise.all(answers.map(async (o) => {
        expect(o.kind).toBe('recorded')
        const [row] = await rows('SELECT revenue FROM conversions WHERE id = $1', (o as { conversionId: number }).conversionId)
        return row!.revenue
      }))
      expect(got).toEqual([1, 2, 3])
    } finally {
      settings.postback_dedup = true
    }
  })

  /** The conversions of these clicks, their jobs, and the rollup's money for their campaigns. */
  async function written(clicks: Array<{ clickId: string; campaign: number }>) {
    const conv = await rows('SELECT id, revenue FROM conversions WHERE click_id = ANY($1::text[]) ORDER BY id', clicks.map((c) => c.clickId))
    const jobRefs = await rows("SELECT ref FROM jobs WHERE kind = 'test.forward' AND ref = ANY($1::text[]) ORDER BY id", conv.map((c) => `conv-${c.id}`))
    const [money] = await rows('SELECT sum(conversions)::int AS n, sum(revenue) AS revenue FROM conversion_stats_hourly WHERE campaign_id = ANY($1::int[])',
      clicks.map((c) => c.campaign))
    const [daily] = await rows('SELECT sum(conversions)::int AS n, sum(revenue) AS revenue FROM conversion_stats_daily WHERE campaign_id = ANY($1::int[])',
      clicks.map((c) => c.campaign))
    return { conversions: conv.length, revenue: conv.reduce((n, c) => n + Number(c.revenue), 0), jobs: jobRefs.length, money, daily }
  }

  test('a batch whose postbacks need no transaction is ONE statement: conversions, jobs and rollups commit together', async () => {
    const clicks = await Promise.all([1, 2, 3, 4, 5].map((i) => addClick('USD', 2, i !== 5)))
    const [b0, one0] = [begins, batcher.paths.oneStatement]
    // No tid (no dedup check), one click twice, one click looked up alone: still no transaction.
    const queries = [...clicks.map((c, i) => `subid=${c.clickId}&payout=${i + 1}`), `subid=${clicks[0]!.clickId}&payout=10`]
    const answers = await Promise.all(queries.map((q) => batcher.submit(q, '198.51.100.9')))
    expect(answers.map((a) => a.kind)).toEqual(Array(6).fill('recorded'))
    expect(new Set(answers.map((a) => (a as { conversionId: number }).conversionId)).size).toBe(6)
    expect(begins - b0).toBe(0)
    expect(batcher.paths.oneStatement - one0).toBe(1)
    expect(await written(clicks)).toEqual({ conversions: 6, revenue: 25, jobs: 6, money: { n: 6, revenue: 25 }, daily: { n: 6, revenue: 25 } })
  })

  test('a subscriber writing with a tagged template makes the batch a transaction; everything is written once', async () => {
    const clicks = await Promise.all([1, 2, 3].map(() => addClick('USD', 2)))
    const [b0, one0, tx0] = [begins, batcher.paths.oneStatement, batcher.paths.transaction]
    taggedWrite = `tagged-${clicks[0]!.clickId}`
    try {
      const answers = await Promise.all(clicks.map((c) => batcher.submit(`subid=${c.clickId}&payout=3`, '198.51.100.9')))
      expect(answers.map((a) => a.kind)).toEqual(['recorded', 'recorded', 'recorded'])
    } finally {
      taggedWrite = null
    }
    expect(begins - b0).toBe(1)
    expect(batcher.paths.oneStatement - one0).toBe(0)
    expect(batcher.paths.transaction - tx0).toBe(1)
    expect(await rows('SELECT count(*)::int AS n FROM postback_errors WHERE query = $1', `tagged-${clicks[0]!.clickId}`)).toEqual([{ n: 1 }])
    expect(await written(clicks)).toEqual({ conversions: 3, revenue: 9, jobs: 3, money: { n: 3, revenue: 9 }, daily: { n: 3, revenue: 9 } })
  })

  test('the one statement failing on the server falls back to a transaction, then savepoints: money counted once', async () => {
    settings.postback_dedup = false
    try {
      const clicks = await Promise.all([1, 2, 3, 4].map(() => addClick('USD', 2)))
      const [b0, sp0] = [begins, batcher.paths.savepoints]
      // The fourth's conversion insert is refused by the test trigger (a database error, not a rule).
      const queries = clicks.map((c, i) => `subid=${c.clickId}&payout=${i + 1}${i === 3 ? '&tid=raise-me' : ''}`)
      const answers = await Promise.all(queries.map((q) => answer(batcher.submit(q, '198.51.100.9'))))
      expect(answers.map((a) => (a.ok ? a.outcome.kind : '500'))).toEqual(['recorded', 'recorded', 'recorded', '500'])
      // One statement (rolled back), a transaction (rolled back), then the savepoints' transaction.
      expect(begins - b0).toBe(2)
      expect(batcher.paths.savepoints - sp0).toBe(1)
      expect(await written(clicks)).toEqual({ conversions: 3, revenue: 6, jobs: 3, money: { n: 3, revenue: 6 }, daily: { n: 3, revenue: 6 } })
    } finally {
      settings.postback_dedup = true
    }
  })
})
