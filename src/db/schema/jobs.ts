import { sql } from 'drizzle-orm'
import { integer, text, index } from 'drizzle-orm/sqlite-core'
import { table, bigId, ms } from '../table'

/** Durable outbound work. status: pending → running → done | failed (pending again on retry); pending → cancelled. */
export const jobs = table('jobs', {
  id: bigId(),
  kind: text('kind').notNull(),
  payload: text('payload').notNull(),
  status: text('status', { enum: ['pending', 'running', 'done', 'failed', 'cancelled'] }).notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  maxAttempts: integer('max_attempts').notNull(),
  /** Permission section the job's kind belongs to (who may see and retry it): conversions, email… */
  section: text('section').notNull().default('conversions'),
  /** What the job is about, for cancelling its pending jobs together (e.g. one subscriber's automation); null for most. */
  ref: text('ref'),
  lastError: text('last_error'),
  /** Last outcome worth showing (e.g. the HTTP status of a forwarded postback). */
  result: text('result'),
  nextRunAt: ms('next_run_at').notNull(),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
}, (t) => [
  index('jobs_due_idx').on(t.status, t.nextRunAt),
  // Partial: the jobs of the postback hot path (forwards) have no ref and cost no index entry.
  index('jobs_ref_idx').on(t.ref, t.status).where(sql`${t.ref} IS NOT NULL`),
])
