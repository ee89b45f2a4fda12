// The SQL side of group commit: a dedicated connection, statements prepared once, one transaction per batch.
import { openConnection, type PositionalStatement } from '../../db/client'
import { CLICK_FIELDS, ROLLUP_FIELDS, bindClicks, insertSql, selectList, type Click, type RollupClick } from './click'
import { ClickRollup } from './click-rollup'
import { TargetingFold } from './targeting-fold'
import { sqliteClickCosts, type ClickCosts } from './reprice'

/** 39 × 64 bound values stays far below SQLite's variable limit (32,766). */
const MAX_ROWS_PER_INSERT = 64

/** A change to a stored click, committed with a batch; the click's rollup rows follow it. */
export interface ClickAmend {
  row: number
  /** The click's created_at, when the caller knows it: Postgres then finds the row in its day's partition only. */
  createdAt?: number
  /** Continue to another offer (the stored one left the rotation). */
  offerId?: number
  /** Another landing: the stored one left the rotation, or the visitor is on (or sent a lead from) this one. */
  landingId?: number | null
  /** The first view of its landing: set once, kept after. */
  viewedAt?: number
  /** The first click-through to the offer: set once, kept after (implies a view). */
  clickedAt?: number
  /** Flagged as a bot (cloak.js): no longer unique, cost 0; a click already flagged keeps its first reason. */
  botReason?: string
}

/** The stored click after `a`; the same object when `a` changes nothing. */
export function amended(c: RollupClick, a: ClickAmend): RollupClick {
  const next = { ...c }
  if (a.offerId !== undefined) next.offerId = a.offerId
  if (a.landingId !== undefined) next.landingId = a.landingId
  if (a.viewedAt !== undefined && next.landingViewedAt === null) next.landingViewedAt = a.viewedAt
  if (a.clickedAt !== undefined && next.landingClickedAt === null) {
    next.landingClickedAt = a.clickedAt
    next.landingViewedAt ??= a.clickedAt
  }
  if (a.botReason !== undefined && !next.botReason) {
    next.botReason = a.botReason
    next.isUnique = 0
    next.cost = 0
  }
  const same = next.offerId === c.offerId && next.landingId === c.landingId && next.landingViewedAt === c.landingViewedAt &&
    next.landingClickedAt === c.landingClickedAt && next.botReason === c.botReason
  return same ? c : next
}

export interface Committer {
  /** Inserts `clicks` and applies `amends` in one transaction, rollups included; returns the clicks' row ids, in order. */
  commit(clicks: readonly Click[], amends: readonly ClickAmend[]): number[]
  /** Counts the committed clicks into the targeting rollups (targeting-fold.ts): reports call it before reading. */
  settle(): void
  /** Cost updates (reprice.ts), on this connection: one IMMEDIATE transaction per call. */
  costs: ClickCosts
  close(): void
}

/**
 * Opens a dedicated connection for click writes: one IMMEDIATE transaction per batch. A connection of
 * its own carries its own checkpoint policy (below) and binds positionally, without touching the shared
 * connection's settings.
 */
export function createCommitter(path: string): Committer {
  const raw = openConnection(path)
  raw.exec('PRAGMA busy_timeout = 5000')
  raw.exec('PRAGMA synchronous = NORMAL')
  // As on the shared connection. Unset, every multi-row INSERT's statement journal took a 64 KB chunk
  // (its spill size) from the allocator: ~2 per commit, 2.9 GB churned per 20,000 commits (mimalloc's stats).
  raw.exec('PRAGMA temp_store = MEMORY')
  raw.exec('PRAGMA cache_size = -65536')
  // Every click dirties fresh pages at the end of the table, so the WAL grows by a fraction of a page
  // per click. Checkpointing every 10000 pages (~40 MB) instead of SQLite's 1000 means 10x fewer fsyncs
  // and writes each page back once per checkpoint instead of several times: measured -37% commit
  // cost per click and +18-27% redirects/s on one core. Normally the checkpointer thread
  // (checkpointer.ts) checkpoints long before this threshold, so the ~50 ms pause of a checkpoint run by
  // this connection's commit no longer lands on the request thread; the threshold stays as a backstop.
  raw.exec('PRAGMA wal_autocheckpoint = 10000')
  // One multi-row INSERT per slice of a batch instead of one statement per click: a single bind and
  // step crossing per slice (measured on the redirect path; see README "Performance"). Each slice size
  // has its statement and a values array reused by every slice of that size.
  const inserts = new Map<number, { st: PositionalStatement; values: unknown[] }>()
  const insertOf = (n: number) => {
    let ins = inserts.get(n)
    if (!ins) inserts.set(n, (ins = { st: raw.preparePositional(insertSql(n)), values: new Array(n * CLICK_FIELDS.length) }))
    return ins
  }
  const rollup = new ClickRollup(raw)
  const fold = new TargetingFold(raw, rollup)
  // A crash may have left committed clicks uncounted: count them before the first batch.
  fold.settle()
  let lastRow = 0
  const before = raw.prepare(`SELECT ${selectList(ROLLUP_FIELDS)} FROM clicks WHERE id = $row`)
  const update = raw.prepare(
    'UPDATE clicks SET offer_id = $offer, landing_id = $landing, bot_reason = $bot, is_unique = $unique, cost = $cost, ' +
      'landing_viewed_at = $viewed, landing_clicked_at = $clicked WHERE id = $row',
  )

  // Caps (tracking/caps.ts): the clicks a capped offer took, committed with them, so a restart counts exactly.
  const addCap = raw.prepare('INSERT INTO cap_counters (cap, period, clicks) VALUES ($cap, $period, $n) ' +
    'ON CONFLICT (cap, period) DO UPDATE SET clicks = clicks + excluded.clicks')
  const countCaps = (clicks: readonly Click[]) => {
    let byKey: Map<string, number> | null = null
    for (let i = 0; i < clicks.length; i++) {
      const keys = clicks[i]!.capKeys
      if (!keys) continue
      byKey ??= new Map()
      for (const k of keys) byKey.set(k, (byKey.get(k) ?? 0) + 1)
    }
    if (!byKey) return
    for (const [k, n] of byKey) {
      const bar = k.lastIndexOf('|')
      addCap.run({ cap: k.slice(0, bar), period: k.slice(bar + 1), n })
    }
  }

  /** An amended click moves from its old rollup row (or counts) to its new one. */
  const applyAmend = (a: ClickAmend) => {
    const old = before.get({ row: a.row }) as RollupClick | undefined
    if (!old) return
    const next = amended(old, a)
    if (next === old) return
    update.run({
      row: a.row, offer: next.offerId, landing: next.landingId, bot: next.botReason, unique: next.isUnique ? 1 : 0, cost: next.cost,
      viewed: next.landingViewedAt, clicked: next.landingClickedAt,
    })
    // The targeting rollups move with the click once the fold has counted it; before, the fold counts it as amended.
    const counted = fold.counted(a.row)
    rollup.apply([old], -1, counted)
    rollup.apply([next], 1, counted)
  }

  const write = raw.immediate((clicks: readonly Click[], amends: readonly ClickAmend[]): number[] => {
    const ids = new Array<number>(clicks.length)
    for (let from = 0; from < clicks.length; from += MAX_ROWS_PER_INSERT) {
      const n = Math.min(MAX_ROWS_PER_INSERT, clicks.length - from)
      const { st, values } = insertOf(n)
      bindClicks(values, clicks, from, from + n)
      const last = Number(st.run(values).lastInsertRowid)
      // The array lives as long as the connection (old space); left holding this slice's strings, each
      // young collection found them reachable and moved them to old space, ~16k strings a second at 30k
      // clicks/s, kept until a full collection. Emptied, they die young.
      values.fill(null)
      // The write lock is held, so one statement's rows get consecutive ids ending at `last`.
      for (let i = 0; i < n; i++) ids[from + i] = last - n + 1 + i
    }
    // Counted in the same transaction that stores them: reports are exact the moment a click commits. The
    // targeting rollups follow by the fold (settle(), which every report read runs first).
    rollup.apply(clicks, 1, false)
    countCaps(clicks)
    for (let i = 0; i < amends.length; i++) applyAmend(amends[i]!)
    return ids
  })
  return {
    commit: (clicks, amends) => {
      const ids = write(clicks, amends)
      if (ids.length > 0) lastRow = ids[ids.length - 1]!
      return ids
    },
    settle: () => fold.settle(lastRow),
    costs: sqliteClickCosts(raw, rollup, fold),
    close: () => raw.close(),
  }
}
