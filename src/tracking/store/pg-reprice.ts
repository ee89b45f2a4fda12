// Cost updates on Postgres (the twin of reprice.ts): the scope's click rows locked in id order, their cost
// replaced, and the rollup deltas written in the same transaction through the click commit's own statements
// (pg-commit.ts), in its lock order (clicks by id, then the hourly rollups day-first, then the targeting rollups,
// then the country totals), so a cost update and the click batches of any instance never deadlock. Postgres
// writes the targeting rollups with each click, so every click of the scope moves in all of them.
import type { SQL } from 'bun'
import { num } from '../../db/pg/client'
import type { RollupClick } from './click'
import { addRollupDeltas, newTargetingDeltas, type RollupDelta } from './click-rollup'
import { writeRollups } from './pg-commit'
import { SUB_COLUMNS, shareOf, type ClickCosts, type CostScope } from './reprice'

const FIELDS =
  'id, created_at AS "createdAt", campaign_id AS "campaignId", source_id AS "sourceId", offer_id AS "offerId", ' +
  'landing_id AS "landingId", bot_reason AS "botReason", excluded, is_unique AS "isUnique", cost, ' +
  'landing_viewed_at AS "landingViewedAt", landing_clicked_at AS "landingClickedAt", country, path_id AS "pathId"'

/** By row id within the scope's time ($3, $4): only the scope's day partitions are probed (docs/postgres.md). */
const UPDATE_SQL =
  'UPDATE clicks c SET cost = u.cost FROM unnest($1::int8[], $2::float8[]) AS u(id, cost) ' +
  'WHERE c.id = u.id AND c.created_at >= $3 AND c.created_at < $4'

/** The WHERE of a scope and its values ($1..$n); column names from SUB_COLUMNS only, a parameter's name bound. */
function where(scope: CostScope): { text: string; values: unknown[] } {
  const values: unknown[] = [scope.campaignId, scope.from, scope.to]
  let text = 'WHERE campaign_id = $1 AND created_at >= $2 AND created_at < $3 AND excluded = 0'
  if (scope.sub) {
    if ((SUB_COLUMNS as readonly string[]).includes(scope.sub.name)) {
      text += ` AND ${scope.sub.name} = $4`
      values.push(scope.sub.value)
    } else {
      text += ' AND (params::jsonb ->> $5) = $4'
      values.push(scope.sub.value, scope.sub.name)
    }
  }
  return { text, values }
}

export function pgClickCosts(sql: SQL): ClickCosts {
  return {
    async count(scope) {
      const w = where(scope)
      const [r] = await sql.unsafe(`SELECT COUNT(*) AS n FROM clicks ${w.text}`, w.values)
      return num((r as { n: unknown }).n)
    },
    replace: (scope, cents) =>
      sql.begin(async (tx) => {
        const w = where(scope)
        const locked = (await tx.unsafe(`SELECT ${FIELDS} FROM clicks ${w.text} ORDER BY id FOR UPDATE`, w.values)) as Array<Record<string, unknown>>
        const rows = locked.map((r) => ({
          ...(r as unknown as RollupClick), id: num(r.id), createdAt: num(r.createdAt),
          landingViewedAt: r.landingViewedAt === null ? null : num(r.landingViewedAt),
          landingClickedAt: r.landingClickedAt === null ? null : num(r.landingClickedAt),
        }))
        // The share goes by (created_at, id), as on SQLite; the lock went by id.
        rows.sort((a, b) => a.createdAt - b.createdAt || a.id - b.id)
        const deltas = new Map<string, RollupDelta>()
        const targeting = newTargetingDeltas()
        const ids: number[] = []
        const costs: number[] = []
        for (let i = 0; i < rows.length; i++) {
          const r = rows[i]!
          const cost = shareOf(cents, rows.length, i)
          if (cost === r.cost) continue
          ids.push(r.id)
          costs.push(cost)
          addRollupDeltas(deltas, [r], -1, targeting)
          addRollupDeltas(deltas, [{ ...r, cost }], 1, targeting)
        }
        if (ids.length === 0) return rows.length
        await tx.unsafe(UPDATE_SQL, [ids, costs, scope.from, scope.to])
        await writeRollups(tx as unknown as SQL, deltas, targeting)
        return rows.length
      }),
  }
}
