import { sqliteTable, integer, text, index, uniqueIndex } from 'drizzle-orm/sqlite-core'

/** Mailing lists: landings enrol leads into one, triggers enrol buyers, automations mail their subscribers. */
export const emailLists = sqliteTable('email_lists', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
})

/**
 * One address in one list. `email` is normalised (see src/email/address.ts), so the unique pair makes a
 * second enrolment of the same address a no-op that keeps the first consent.
 * source: lead | trigger | purchase | manual | import. status: active | unsubscribed | bounced | complained.
 */
export const emailSubscribers = sqliteTable('email_subscribers', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  listId: integer('list_id').notNull().references(() => emailLists.id, { onDelete: 'cascade' }),
  email: text('email').notNull(),
  name: text('name'),
  /** Custom fields, a JSON object of strings (macros of the messages). */
  fields: text('fields').notNull().default('{}'),
  source: text('source').notNull(),
  status: text('status').notNull().default('active'),
  consentAt: integer('consent_at').notNull(),
  consentIp: text('consent_ip'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [
  uniqueIndex('email_subscribers_list_email_idx').on(t.listId, t.email),
  // Suppression and the magic link look an address up across lists.
  index('email_subscribers_email_idx').on(t.email),
])
