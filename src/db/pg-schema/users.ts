import { pgTable, integer, bigint, text } from 'drizzle-orm/pg-core'

// Postgres twin of ../schema/users.ts: same table and column names, so store SQL stays nearly the same.
// Flags stay 0/1 integers (not boolean) and times stay epoch-ms bigints: rows read back as on SQLite.
export const users = pgTable('users', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  permissions: text('permissions').notNull().default('{}'),
  isOwner: integer('is_owner').notNull().default(0),
  sessionEpoch: integer('session_epoch').notNull().default(0),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
})
