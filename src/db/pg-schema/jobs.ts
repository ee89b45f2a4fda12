import { sql } from 'drizzle-orm'
import { pgTable, integer, bigint, text, index } from 'drizzle-orm/pg-core'

/** Postgres twin of ../schema/jobs.ts (bigint id: one row per forwarded postback, like clicks). */
export const jobs = pgTable('jobs', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
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
  result: text('result'),
  nextRunAt: bigint('next_run_at', { mode: 'number' }).notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
}, (t) => [
  index('jobs_due_idx').on(t.status, t.nextRunAt),
  // Partial: the jobs of the postback hot path (forwards) have no ref and cost no index entry.
  index('jobs_ref_idx').on(t.ref, t.status).where(sql`${t.ref} IS NOT NULL`),
])
