import { pgTable, integer, bigint, text, index, uniqueIndex, primaryKey } from 'drizzle-orm/pg-core'
import { offers } from './campaigns'

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

export const emailOutbox = pgTable('email_outbox', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  listId: integer('list_id'),
  subscriberId: bigint('subscriber_id', { mode: 'number' }),
  toEmail: text('to_email').notNull(),
  subject: text('subject').notNull(),
  textBody: text('text_body').notNull(),
  htmlBody: text('html_body'),
  status: text('status').notNull(),
  jobId: bigint('job_id', { mode: 'number' }),
  messageId: text('message_id'),
  result: text('result'),
  /**
   * Makes writing the message idempotent: a second add() with the same key writes nothing (an automation
   * step's job retried after a crash, whose first run already wrote it). Null for most messages.
   */
  dedupKey: text('dedup_key'),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
}, (t) => [
  index('email_outbox_status_idx').on(t.status, t.id),
  index('email_outbox_to_idx').on(t.toEmail),
  uniqueIndex('email_outbox_dedup_idx').on(t.dedupKey),
])

export const emailTriggers = pgTable('email_triggers', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  offerId: integer('offer_id').notNull().references(() => offers.id, { onDelete: 'cascade' }),
  targetListId: integer('target_list_id').notNull().references(() => emailLists.id, { onDelete: 'cascade' }),
  active: integer('active').notNull().default(1),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
}, (t) => [index('email_triggers_offer_idx').on(t.offerId)])

export const emailAutomations = pgTable('email_automations', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  listId: integer('list_id').notNull().references(() => emailLists.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  active: integer('active').notNull().default(1),
  steps: text('steps').notNull().default('[]'),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
}, (t) => [index('email_automations_list_idx').on(t.listId)])

export const customers = pgTable('customers', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  email: text('email').notNull().unique(),
  sessionEpoch: integer('session_epoch').notNull().default(0),
  createdAt: ms('created_at').notNull(),
  lastLoginAt: ms('last_login_at'),
})

export const customerLoginTokens = pgTable('customer_login_tokens', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  customerId: bigint('customer_id', { mode: 'number' }).notNull().references(() => customers.id, { onDelete: 'cascade' }),
  tokenHash: text('token_hash').notNull().unique(),
  redirect: text('redirect'),
  expiresAt: ms('expires_at').notNull(),
  usedAt: ms('used_at'),
  createdAt: ms('created_at').notNull(),
})

export const mailEvents = pgTable('mail_events', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  provider: text('provider').notNull(),
  eventKey: text('event_key').notNull(),
  kind: text('kind').notNull(),
  hard: integer('hard').notNull().default(0),
  email: text('email').notNull(),
  occurredAt: ms('occurred_at').notNull(),
  createdAt: ms('created_at').notNull(),
}, (t) => [uniqueIndex('mail_events_key_idx').on(t.provider, t.eventKey), index('mail_events_email_idx').on(t.email)])

export const mailWebhookTokens = pgTable('mail_webhook_tokens', {
  provider: text('provider').notNull(),
  token: text('token').notNull(),
  bodyHash: text('body_hash').notNull(),
  expiresAt: ms('expires_at').notNull(),
  createdAt: ms('created_at').notNull(),
}, (t) => [primaryKey({ columns: [t.provider, t.token] }), index('mail_webhook_tokens_expires_idx').on(t.expiresAt)])
