// Rule sets in the catalog store (both engines): saved conditions that paths of several campaigns share. A
// rule set names the campaigns using it, so a change shows where it applies; one in use is not deleted.
import { inList, sql } from '../../db/sql'
import type { Queries, StoreDb } from '../../db/store-db'
import { notFound } from '../../lib/errors'
import type { Page } from '../../lib/paging'
import type { Steps } from '../../lib/steps'
import { ruleSetInUse } from './errors'
import type { RuleSet, RuleSetRow, RuleSetValues } from './types'

const COLS = sql`id, name, conditions, created_at AS "createdAt", updated_at AS "updatedAt"`
export const missingRuleSet = () => notFound('rule set not found')

/** Each rule set with the campaigns whose paths use it. */
function* withUsers(q: Queries, rows: RuleSetRow[]): Steps<RuleSet[]> {
  if (rows.length === 0) return []
  const users: Array<{ ruleSetId: number; campaignId: number }> = yield q.all(sql`SELECT DISTINCT rule_set_id AS "ruleSetId",
    campaign_id AS "campaignId" FROM campaign_paths WHERE rule_set_id IN ${inList(rows.map((r) => r.id))} ORDER BY 1, 2`)
  const by = new Map<number, number[]>(rows.map((r) => [r.id, []]))
  for (const u of users) by.get(Number(u.ruleSetId))?.push(Number(u.campaignId))
  return rows.map((row) => ({ id: row.id, row, campaignIds: by.get(row.id)! }))
}

function* one(q: Queries, id: number): Steps<RuleSet | undefined> {
  const row: RuleSetRow | undefined = yield q.get(sql`SELECT ${COLS} FROM rule_sets WHERE id = ${id}`)
  return row ? (yield* withUsers(q, [row]))[0] : undefined
}

export function ruleSetStore(db: StoreDb) {
  return {
    listRuleSets: async (page: Page) => db.snapshot(function* (q): Steps<RuleSet[]> {
      const rows: RuleSetRow[] = yield q.all(sql`SELECT ${COLS} FROM rule_sets WHERE id > ${page.afterId} ORDER BY id LIMIT ${page.limit + 1}`)
      return yield* withUsers(q, rows)
    }),
    findRuleSet: async (id: number) => db.snapshot((q) => one(q, id)),
    createRuleSet: (values: RuleSetValues) => db.atomically(function* (q): Steps<RuleSet> {
      const now = Date.now()
      const row: { id: number } = yield q.get(sql`INSERT INTO rule_sets (name, conditions, created_at, updated_at)
        VALUES (${values.name}, ${values.conditions}, ${now}, ${now}) RETURNING id`)
      return (yield* one(q, Number(row.id)))!
    }),
    updateRuleSet: (id: number, changes: Partial<RuleSetValues>) => db.atomically(function* (q): Steps<RuleSet> {
      const found: { id: number } | undefined = yield q.get(sql`SELECT id FROM rule_sets WHERE id = ${id} ${db.forUpdate}`)
      if (!found) throw missingRuleSet()
      const now = Date.now()
      yield q.run(sql`UPDATE rule_sets SET name = COALESCE(${changes.name ?? null}, name),
        conditions = COALESCE(${changes.conditions ?? null}, conditions), updated_at = ${now} WHERE id = ${id}`)
      return (yield* one(q, id))!
    }),
    deleteRuleSet: (id: number) => db.atomically(function* (q): Steps<void> {
      const found: { id: number } | undefined = yield q.get(sql`SELECT id FROM rule_sets WHERE id = ${id} ${db.forUpdate}`)
      if (!found) throw missingRuleSet()
      const user: { id: number; slug: string } | undefined = yield q.get(sql`SELECT c.id, c.slug FROM campaign_paths p
        JOIN campaigns c ON c.id = p.campaign_id WHERE p.rule_set_id = ${id} ORDER BY c.id LIMIT 1`)
      if (user) throw ruleSetInUse(user)
      yield q.run(sql`DELETE FROM rule_sets WHERE id = ${id}`)
    }),
  }
}
