import { integer, text, primaryKey } from 'drizzle-orm/sqlite-core'
import { table } from '../table'

/**
 * Click counts of the caps (issue 29), per cap and period ('YYYY-MM-DD' local day in the cap's zone, or 'total').
 * `cap`: 'o<offer>' for an offer's cap, 'c<campaign>p<path, 0 = default rotation>o<offer>' for a rotation entry's.
 * SQLite: the clicks committed so far, written in the click batch's own transaction (exact after a crash).
 * Postgres: the clicks granted to instances in leases (tracking/caps.ts), so no instance sends more than the limit.
 */
export const capCounters = table('cap_counters', {
  cap: text('cap').notNull(),
  period: text('period').notNull(),
  clicks: integer('clicks').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.cap, t.period] })])
