import { integer, text } from 'drizzle-orm/sqlite-core'
import { table, id, ms } from '../table'

export const users = table('users', {
  id: id(),
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  /** JSON {"campaigns":{"read":true,"write":false},…}; ignored for owners, who have every permission. */
  permissions: text('permissions').notNull().default('{}'),
  isOwner: integer('is_owner', { mode: 'boolean' }).notNull().default(false),
  /** Bumped on logout and password change: every cookie signed with an older epoch stops working. */
  sessionEpoch: integer('session_epoch').notNull().default(0),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
})
