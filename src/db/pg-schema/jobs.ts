import { pgTable, integer, bigint, text, index } from 'drizzle-orm/pg-core'

/** Postgres twin of ../schema/jobs.ts (bigint id: one row per forwarded postback, like clicks). */
export const jobs = pgTable('jobs', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  kind: text('kind').notNull(),
  payload: text('payload').notNull(),
  status: text('status', { enum: ['pending', 'running', 'done', 'failed'] }).notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  maxAttempts: integer('max_attempts').notNull(),
  lastError: text('last_error'),
  result: text('result'),
  nextRunAt: bigint('next_run_at', { mode: 'number' }).notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
}, (t) => [index('jobs_due_idx').on(t.status, t.nextRunAt)])
