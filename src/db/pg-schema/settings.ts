import { pgTable, integer, bigint, text } from 'drizzle-orm/pg-core'

/** Postgres twin of ../schema/settings.ts. */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  encrypted: integer('encrypted').notNull().default(0),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
})
