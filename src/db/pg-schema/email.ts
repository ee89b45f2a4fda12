import { pgTable, integer, bigint, text, index, uniqueIndex } from 'drizzle-orm/pg-core'

// Postgres twin of ../schema/email.ts (identity BY DEFAULT: see campaigns.ts).
const ms = (name: string) => bigint(name, { mode: 'number' })

export const emailLists = pgTable('email_lists', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  name: text('name').notNull(),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

export const emailSubscribers = pgTable('email_subscribers', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  listId: integer('list_id').notNull().references(() => emailLists.id, { onDelete: 'cascade' }),
  email: text('email').notNull(),
  name: text('name'),
  fields: text('fields').notNull().default('{}'),
  source: text('source').notNull(),
  status: text('status').notNull().default('active'),
  consentAt: ms('consent_at').notNull(),
  consentIp: text('consent_ip'),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
}, (t) => [
  uniqueIndex('email_subscribers_list_email_idx').on(t.listId, t.email),
  index('email_subscribers_email_idx').on(t.email),
])
