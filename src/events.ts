// The one list of domain events. Features announce what happened here; side effects (rollups, forwarding,
// cache invalidation, later email triggers, webhooks and landing views) subscribe instead of being called.
// docs/architecture.md has the table of who emits and who subscribes, and in which phase.
import type { RecordedConversion } from './postback/record'
import type { CommittedClicks } from './tracking/store/click'

export interface DomainEvents {
  /**
   * Clicks whose rows (and click rollups) just committed, one event per commit (rows[i] is the row of
   * clicks[i]); after-commit only, emitted before their 302s leave. Imported clicks too.
   */
  'click.committed': CommittedClicks
  /** A conversion row was written (postback today; webhooks and commerce later). */
  'conversion.recorded': RecordedConversion
  /** A source, offer, landing or campaign was created, changed or deleted. */
  'catalog.changed': { entity: 'source' | 'offer' | 'landing' | 'campaign'; id: number; action: 'created' | 'updated' | 'deleted' }
  /** Settings keys were written (PUT /admin/api/settings, postback aliases). */
  'settings.changed': { keys: readonly string[] }
  /** A conversion type or the status map changed. */
  'conversion-types.changed': Record<string, never>
  /** An email automation was created, changed or deleted (every instance reloads its automation table). */
  'email-automations.changed': Record<string, never>
  /** An email trigger was created, changed or deleted (every instance reloads its trigger table). */
  'email-triggers.changed': Record<string, never>
  /** An address joined a list (a new row: enrolling an address already there announces nothing). */
  'email.subscriber.enrolled': { listId: number; subscriberId: number; email: string; source: string }
  /**
   * An order was paid and counted (a commerce webhook), in-transaction with it: the buyer joins the
   * product's list, whose automations are the post-purchase sequence.
   */
  'order.paid': OrderPaid
  /** A lead form was submitted (POST /api/lead); in-transaction with the lead row. */
  'lead.captured': LeadCaptured
}

export interface OrderPaid {
  orderId: number
  source: string
  email: string | null
  /** The list buyers of the order's product join (the post-purchase automation); null: none. */
  emailListId: number | null
  productId: number | null
  clickId: string | null
  paidAt: number
}

export interface LeadCaptured {
  leadId: number
  landingId: number
  /** The list the landing enrols into, or null. */
  emailListId: number | null
  email: string
  name: string | null
  fields: Record<string, string>
  clickId: string | null
  ip: string | null
  createdAt: number
}

export type EventName = keyof DomainEvents
