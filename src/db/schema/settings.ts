import { sqliteTable, integer, text } from 'drizzle-orm/sqlite-core'

/** Key/value settings. Secret values are stored AES-256-GCM encrypted (encrypted = 1). */
export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  encrypted: integer('encrypted', { mode: 'boolean' }).notNull().default(false),
  updatedAt: integer('updated_at').notNull(),
})
