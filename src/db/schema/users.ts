import { sqliteTable, integer, text } from 'drizzle-orm/sqlite-core'

export const users = sqliteTable('users', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  /** JSON {"campaigns":{"read":true,"write":false},…}; ignored for owners, who have every permission. */
  permissions: text('permissions').notNull().default('{}'),
  isOwner: integer('is_owner', { mode: 'boolean' }).notNull().default(false),
  /** Bumped on logout and password change: every cookie signed with an older epoch stops working. */
  sessionEpoch: integer('session_epoch').notNull().default(0),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
})
