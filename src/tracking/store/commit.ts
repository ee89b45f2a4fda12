// The SQL side of group commit: a dedicated connection, statements prepared once, one transaction per batch.
import { openConnection, type PositionalStatement } from '../../db/client'
import { CLICK_FIELDS, ROLLUP_FIELDS, bindClicks, insertSql, selectList, type Click, type RollupClick } from './click'
import { ClickRollup } from './click-rollup'

/** 28 × 64 bound values stays far below SQLite's variable limit. */
const MAX_ROWS_PER_INSERT = 64

/** [row id, offer id, landing id]: a continued click whose offer/landing left the rotation. */
export type Repoint = [row: number, offerId: number, landingId: number | null]

export interface Committer {
  /** Inserts `clicks` and applies `repoints` in one transaction, rollups included; returns the clicks' row ids, in order. */
  commit(clicks: readonly Click[], repoints: readonly Repoint[]): number[]
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
  const before = raw.prepare(`SELECT ${selectList(ROLLUP_FIELDS)} FROM clicks WHERE id = $row`)
  const repoint = raw.prepare('UPDATE clicks SET offer_id = $offer, landing_id = $landing WHERE id = $row')

  /** A repointed click moves from its old rollup row to its new one. */
  const applyRepoint = ([row, offer, landing]: Repoint) => {
    const old = before.get({ row }) as RollupClick | undefined
    if (!old) return
    repoint.run({ row, offer, landing })
    rollup.apply([old], -1)
    rollup.apply([{ ...old, offerId: offer, landingId: landing }], 1)
  }

  const write = raw.immediate((clicks: readonly Click[], repoints: readonly Repoint[]): number[] => {
    const ids = new Array<number>(clicks.length)
    for (let from = 0; from < clicks.length; from += MAX_ROWS_PER_INSERT) {
      const n = Math.min(MAX_ROWS_PER_INSERT, clicks.length - from)
      const { st, values } = insertOf(n)
      bindClicks(values, clicks, from, from + n)
      const last = Number(st.run(values).lastInsertRowid)
      // The write lock is held, so one statement's rows get consecutive ids ending at `last`.
      for (let i = 0; i < n; i++) ids[from + i] = last - n + 1 + i
    }
    // Counted in the same transaction that stores them: reports are exact the moment a click commits.
    rollup.apply(clicks)
    for (let i = 0; i < repoints.length; i++) applyRepoint(repoints[i]!)
    return ids
  })
  return {
    commit: write,
    close: () => raw.close(),
  }
}
