import { sqliteTable, integer, text, index } from 'drizzle-orm/sqlite-core'

/** Durable outbound work. status: pending → running → done | failed (pending again on retry). */
export const jobs = sqliteTable('jobs', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  kind: text('kind').notNull(),
  payload: text('payload').notNull(),
  status: text('status', { enum: ['pending', 'running', 'done', 'failed'] }).notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  maxAttempts: integer('max_attempts').notNull(),
  lastError: text('last_error'),
  /** Last outcome worth showing (e.g. the HTTP status of a forwarded postback). */
  result: text('result'),
  nextRunAt: integer('next_run_at').notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [index('jobs_due_idx').on(t.status, t.nextRunAt)])
