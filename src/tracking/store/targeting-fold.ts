// The click targeting rollups (per campaign and country, per campaign and path, country totals; issue 28) on
// SQLite, counted from the committed click rows a little after their commit rather than inside it.
//
// Why not in the click's own transaction, like the campaign rollups: every batch of the redirect's group
// commit then wrote three more upserts and two daily triggers, which cost ~9 % of /c's throughput when
// batches are small (measured side by side: docs/performance.md, session 11). Folded from the rows, a
// second's clicks cost a few upserts in all.
//
// Exact across a crash: `rollup_marks.click_targeting` holds the last click row counted, written in the
// fold's own transaction; every row after it is counted by the next fold, from its current state. So a click
// amended before its fold is counted once, as amended; a click amended after is moved by the amend itself
// (commit.ts asks `counted(row)`). Row ids only grow (one writer, INTEGER PRIMARY KEY), so "after the mark"
// is exactly "not yet counted". Reports fold first (settle()), so they never miss a committed click.
import type { RawDb, RawStatement } from '../../db/client'
import { ROLLUP_FIELDS, selectList, type RollupClick } from './click'
import { addRollupDeltas, newTargetingDeltas, type ClickRollup, type RollupDelta } from './click-rollup'

const MARK = 'click_targeting'
/** Clicks folded per transaction: a fold holds the write lock for a few milliseconds at most. */
const FOLD_ROWS = 5_000

export class TargetingFold {
  private mark: number
  private readonly pending: RawStatement
  private readonly setMark: RawStatement
  private readonly fold: () => number | null

  constructor(raw: RawDb, private readonly rollup: ClickRollup) {
    this.pending = raw.prepare(`SELECT id AS row, ${selectList(ROLLUP_FIELDS)} FROM clicks WHERE id > $mark ORDER BY id LIMIT $limit`)
    this.fold = raw.immediate(() => this.foldSome())
    this.setMark = raw.prepare('INSERT INTO rollup_marks (name, row_id) VALUES ($name, $row) ON CONFLICT (name) DO UPDATE SET row_id = excluded.row_id')
    const found = raw.prepare('SELECT row_id AS row FROM rollup_marks WHERE name = $name').get({ name: MARK }) as { row: number } | undefined
    if (found) {
      this.mark = Number(found.row)
    } else {
      // First start since the targeting rollups' migration, whose backfill counted every stored click (or a
      // new database): the fold starts after the last click. The row is never removed afterwards.
      const top = raw.prepare('SELECT COALESCE(MAX(id), 0) AS top FROM clicks').get({}) as { top: number }
      this.mark = Number(top.top)
      this.setMark.run({ name: MARK, row: this.mark })
    }
  }

  /** Whether the click of row `row` is already in the targeting rollups (an amend must then move it there). */
  counted(row: number): boolean {
    return row <= this.mark
  }

  /** Counts every click committed after the mark; `upTo`: the last row known to be committed (skip when counted). */
  settle(upTo = Number.POSITIVE_INFINITY): void {
    while (upTo > this.mark) {
      const folded = this.fold()
      if (folded === null) return
      this.mark = folded
    }
  }

  /** One transaction's worth: the next rows after the mark counted and the mark moved; null when none. */
  private foldSome(): number | null {
    const rows = this.pending.all({ mark: this.mark, limit: FOLD_ROWS }) as Array<RollupClick & { row: number }>
    if (rows.length === 0) return null
    const targeting = newTargetingDeltas()
    addRollupDeltas(new Map<string, RollupDelta>(), rows, 1, targeting)
    this.rollup.applyTargeting(targeting)
    const last = rows[rows.length - 1]!.row
    this.setMark.run({ name: MARK, row: last })
    return last
  }
}
