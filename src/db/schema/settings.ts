import { integer, text } from 'drizzle-orm/sqlite-core'
import { table, ms } from '../table'

/** Key/value settings. Secret values are stored AES-256-GCM encrypted (encrypted = 1). */
export const settings = table('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  encrypted: integer('encrypted', { mode: 'boolean' }).notNull().default(false),
  updatedAt: ms('updated_at').notNull(),
})
