import { integer, text, index, uniqueIndex, primaryKey } from 'drizzle-orm/sqlite-core'
import { table, bigId, id, int8, ms } from '../table'
import { offers } from './campaigns'

/** Mailing lists: landings enrol leads into one, triggers enrol buyers, automations mail their subscribers. */
export const emailLists = table('email_lists', {
  id: id(),
  name: text('name').notNull(),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

/**
 * One address in one list. `email` is normalised (see src/lib/email-address.ts), so the unique pair makes a
 * second enrolment of the same address a no-op that keeps the first consent.
 * source: lead | trigger | purchase | manual | import. status: active | unsubscribed | bounced | complained.
 */
export const emailSubscribers = table('email_subscribers', {
  id: bigId(),
  listId: integer('list_id').notNull().references(() => emailLists.id, { onDelete: 'cascade' }),
  email: text('email').notNull(),
  name: text('name'),
  /** Custom fields, a JSON object of strings (macros of the messages). */
  fields: text('fields').notNull().default('{}'),
  source: text('source').notNull(),
  status: text('status').notNull().default('active'),
  consentAt: ms('consent_at').notNull(),
  consentIp: text('consent_ip'),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
}, (t) => [
  uniqueIndex('email_subscribers_list_email_idx').on(t.listId, t.email),
  // Suppression and the magic link look an address up across lists.
  index('email_subscribers_email_idx').on(t.email),
])

/**
 * Every message svc sends goes through here first (the outbox): visible, durable, sent by the job loop
 * (`email_send` jobs). status: unsent (no SMTP configured yet: sent once it is) | queued (a job will send
 * it) | sent | suppressed (the address may not be mailed any more, checked at send time) | cancelled.
 * A queued message whose job failed for good shows its job's error (job_id).
 */
export const emailOutbox = table('email_outbox', {
  id: bigId(),
  listId: integer('list_id'),
  subscriberId: int8('subscriber_id'),
  toEmail: text('to_email').notNull(),
  subject: text('subject').notNull(),
  textBody: text('text_body').notNull(),
  htmlBody: text('html_body'),
  status: text('status').notNull(),
  jobId: int8('job_id'),
  /** The Message-ID header it was sent with. */
  messageId: text('message_id'),
  /** The relay's answer to a sent message, or why it was suppressed. */
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

/**
 * Postback rule 6: a conversion of `offer_id` (of a type that counts as a conversion) enrols the buyer's
 * address in `target_list_id`. Deleting the offer or the list deletes its triggers.
 */
export const emailTriggers = table('email_triggers', {
  id: id(),
  offerId: integer('offer_id').notNull().references(() => offers.id, { onDelete: 'cascade' }),
  targetListId: integer('target_list_id').notNull().references(() => emailLists.id, { onDelete: 'cascade' }),
  active: integer('active', { mode: 'boolean' }).notNull().default(true),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
}, (t) => [index('email_triggers_offer_idx').on(t.offerId)])

/**
 * An automation of a list: an ordered sequence of messages, each sent `delay_minutes` after a subscriber
 * joined. `steps` is a JSON array of {delay_minutes, subject, text, html}; each message is read when it is
 * due, so an edit reaches the messages still pending. Deleting the list deletes its automations.
 */
export const emailAutomations = table('email_automations', {
  id: id(),
  listId: integer('list_id').notNull().references(() => emailLists.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  active: integer('active', { mode: 'boolean' }).notNull().default(true),
  steps: text('steps').notNull().default('[]'),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
}, (t) => [index('email_automations_list_idx').on(t.listId)])

/** Customers: people who sign in with a magic link (by email; no password). The epoch ends their sessions. */
export const customers = table('customers', {
  id: bigId(),
  email: text('email').notNull().unique(),
  sessionEpoch: integer('session_epoch').notNull().default(0),
  createdAt: ms('created_at').notNull(),
  lastLoginAt: ms('last_login_at'),
})

/** Single-use sign-in links: only the SHA-256 of the token is stored. */
export const customerLoginTokens = table('customer_login_tokens', {
  id: bigId(),
  customerId: int8('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
  tokenHash: text('token_hash').notNull().unique(),
  /** Where to send the person after signing in (checked against the allowlist when the link was asked for). */
  redirect: text('redirect'),
  expiresAt: ms('expires_at').notNull(),
  usedAt: ms('used_at'),
  createdAt: ms('created_at').notNull(),
})

/**
 * What mail providers reported (bounces, complaints, unsubscribes), one row per event and recipient:
 * `event_key` (the provider's event id and the address) makes a redelivered webhook a no-op. A soft
 * bounce is only counted here; a hard bounce or a complaint suppresses the address everywhere.
 */
export const mailEvents = table('mail_events', {
  id: bigId(),
  provider: text('provider').notNull(),
  eventKey: text('event_key').notNull(),
  kind: text('kind').notNull(),
  hard: integer('hard', { mode: 'boolean' }).notNull().default(false),
  email: text('email').notNull(),
  occurredAt: ms('occurred_at').notNull(),
  createdAt: ms('created_at').notNull(),
}, (t) => [uniqueIndex('mail_events_key_idx').on(t.provider, t.eventKey), index('mail_events_email_idx').on(t.email)])

/**
 * Signature tokens of mail-provider webhooks already accepted (Mailgun: its HMAC covers the timestamp and
 * token only, not the body), kept until the signature could no longer be accepted anyway, so a signature
 * seen once cannot carry another body. `body_hash` (SHA-256 of the raw body) tells the provider's own
 * redelivery of the same body (a no-op) from a replay with another body (refused). Shared by every
 * instance; rows past `expires_at` are pruned.
 */
export const mailWebhookTokens = table('mail_webhook_tokens', {
  provider: text('provider').notNull(),
  token: text('token').notNull(),
  bodyHash: text('body_hash').notNull(),
  expiresAt: ms('expires_at').notNull(),
  createdAt: ms('created_at').notNull(),
}, (t) => [primaryKey({ columns: [t.provider, t.token] }), index('mail_webhook_tokens_expires_idx').on(t.expiresAt)])
