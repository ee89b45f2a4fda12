// Cost updates (issue 29, docs/costs.md) on the click store: the real spend of a day spread over its clicks,
// replacing the cost they had, with every rollup that holds cost moved by the same deltas in the same
// transaction (the campaign rollups; the targeting rollups of the clicks already folded into them).
//
// Which clicks: one campaign's, created in [from, to), optionally with one sub value (sub1..sub10) or one
// stored link parameter (clicks.params), excluded (own-IP) clicks left out: reports never count them, so spend
// put on them would vanish from every report. Bot clicks carry their share: the source billed them.
// How: `cents` split evenly in created_at, id order; the first (cents mod n) clicks get one cent more, so the
// clicks add up to the amount exactly and a re-send computes the same costs (replace, never add).
import type { RawDb, RawStatement } from '../../db/client'
import { ROLLUP_FIELDS, selectList, type RollupClick } from './click'
import type { ClickRollup } from './click-rollup'
import type { TargetingFold } from './targeting-fold'

export const SUB_COLUMNS = ['sub1', 'sub2', 'sub3', 'sub4', 'sub5', 'sub6', 'sub7', 'sub8', 'sub9', 'sub10'] as const
/** A link parameter name a cost update may match (clicks.params keys): plain names only, they are spelled into a JSON path. */
export const PARAM_NAME = /^[A-Za-z0-9_.-]{1,64}$/

/** The clicks a cost update prices. `sub.name`: sub1..sub10 or a link parameter's name (checked by the caller). */
export interface CostScope {
  campaignId: number
  from: number
  to: number
  sub: { name: string; value: string } | null
}

/** What the click store offers a cost update (both engines). */
export interface ClickCosts {
  /** How many clicks the scope prices now. */
  count(scope: CostScope): number | Promise<number>
  /** Sets the scope's clicks to add up to `cents` / 100 (replacing their cost), rollups following; resolves with how many. */
  replace(scope: CostScope, cents: number): number | Promise<number>
}

/** The cost of the i-th of n clicks sharing `cents`: what both engines write. */
export const shareOf = (cents: number, n: number, i: number): number => (Math.floor(cents / n) + (i < cents % n ? 1 : 0)) / 100

const isSubColumn = (name: string): boolean => (SUB_COLUMNS as readonly string[]).includes(name)

/** The SQLite JSON path of a parameter key (quoted: `.` and `-` are part of the name). */
export const paramPath = (name: string): string => `$."${name}"`

/** SQLite: on the click writer's connection, so the fold's mark (which clicks it counted) is the one the writes see. */
export function sqliteClickCosts(raw: RawDb, rollup: ClickRollup, fold: TargetingFold): ClickCosts {
  const statements = new Map<string, { count: RawStatement; rows: RawStatement }>()
  const of = (scope: CostScope) => {
    const key = scope.sub === null ? '' : isSubColumn(scope.sub.name) ? scope.sub.name : '$param'
    let s = statements.get(key)
    if (!s) {
      // Column names come from SUB_COLUMNS only; a parameter's name is bound as a JSON path.
      const match = key === '' ? '' : key === '$param' ? ' AND json_extract(params, $path) = $value' : ` AND ${key} = $value`
      const where = `WHERE campaign_id = $campaign AND created_at >= $from AND created_at < $to AND excluded = 0${match}`
      s = {
        count: raw.prepare(`SELECT COUNT(*) AS n FROM clicks ${where}`),
        rows: raw.prepare(`SELECT id AS row, ${selectList(ROLLUP_FIELDS)} FROM clicks ${where} ORDER BY created_at, id`),
      }
      statements.set(key, s)
    }
    const bind: Record<string, unknown> = { campaign: scope.campaignId, from: scope.from, to: scope.to }
    if (scope.sub) {
      bind.value = scope.sub.value
      if (key === '$param') bind.path = paramPath(scope.sub.name)
    }
    return { s, bind }
  }
  const update = raw.prepare('UPDATE clicks SET cost = $cost WHERE id = $row')
  const replace = raw.immediate((scope: CostScope, cents: number): number => {
    const { s, bind } = of(scope)
    const rows = s.rows.all(bind) as Array<RollupClick & { row: number }>
    // Folded clicks move in the targeting rollups too; the others are counted by the fold as they are then.
    const before: [RollupClick[], RollupClick[]] = [[], []]
    const after: [RollupClick[], RollupClick[]] = [[], []]
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!
      const cost = shareOf(cents, rows.length, i)
      if (cost === r.cost) continue
      update.run({ row: r.row, cost })
      const k = fold.counted(r.row) ? 1 : 0
      before[k].push(r)
      after[k].push({ ...r, cost })
    }
    for (const k of [0, 1] as const) {
      if (before[k].length === 0) continue
      rollup.apply(before[k], -1, k === 1)
      rollup.apply(after[k], 1, k === 1)
    }
    return rows.length
  })
  return {
    count: (scope) => {
      const { s, bind } = of(scope)
      return Number((s.count.get(bind) as { n: number }).n)
    },
    replace,
  }
}
