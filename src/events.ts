// The one list of domain events. Features announce what happened here; side effects (rollups, forwarding,
// cache invalidation, later email triggers, webhooks and landing views) subscribe instead of being called.
// docs/architecture.md has the table of who emits and who subscribes, and in which phase.

export interface DomainEvents {
  /**
   * Clicks whose rows (and click rollups) just committed, one event per commit (rows[i] is the row of
   * clicks[i]); after-commit only, emitted before their 302s leave. Imported clicks too.
   */
  'click.committed': CommittedClicks
  /** A conversion row was written (postback today; webhooks and commerce later). */
  'conversion.recorded': RecordedConversion
  /**
   * A conversion moved to another status or type (the opt-in `postback_status_updates` mode: a postback for
   * a click and tid that already has a conversion), in-transaction with the row's update. `before` is the row
   * as it was counted, `after` as it is now: the rollups take `before` out and put `after` in.
   */
  'conversion.updated': ConversionUpdated
  /** A source, offer, landing or campaign was created, changed or deleted. */
  'catalog.changed': { entity: 'source' | 'offer' | 'landing' | 'campaign' | 'rule_set'; id: number; action: 'created' | 'updated' | 'deleted' }
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

export interface ConversionUpdated {
  before: RecordedConversion
  after: RecordedConversion
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

// The payload types below are the features' own vocabulary (the tracker's click, a recorded conversion);
// they live here so that the core imports no feature (test/core/layers.test.ts). The features re-export them.

/** One tracked visit. Flags are booleans here; the store writes them as 0/1. */
export interface Click {
  clickId: string
  campaignId: number
  sourceId: number | null
  offerId: number | null
  landingId: number | null
  ip: string | null
  userAgent: string | null
  referrer: string | null
  sub1: string | null; sub2: string | null; sub3: string | null; sub4: string | null; sub5: string | null
  sub6: string | null; sub7: string | null; sub8: string | null; sub9: string | null; sub10: string | null
  /** Every other visitor query parameter (utm_* …), as JSON text; null when there were none. */
  params: string | null
  /** Why traffic quality flagged the click as a bot; null for a person. */
  botReason: string | null
  /** The operator's own traffic: redirected, but left out of every report. */
  excluded: boolean
  /** The visitor's first click in the campaign within the unique window. */
  isUnique: boolean
  cost: number
  deviceType: string | null
  os: string | null
  browser: string | null
  referrerDomain: string | null
  // What the visitor's IP and headers tell (issue 28, docs/geoip.md); null when unknown, and on clicks
  // stored before it.
  /** ISO 3166-1 alpha-2, upper case: the IP data's, or CF-IPCountry's behind a trusted proxy. */
  country: string | null
  asn: number | null
  /** The network's name as the IP data gives it. */
  asOrg: string | null
  /** hosting | residential | unknown. */
  connection: string | null
  /** Primary language tag of the visitor's preferred Accept-Language entry, lower case ('de'). */
  language: string | null
  /** Major versions, as text ('14', '126'). */
  osVersion: string | null
  browserVersion: string | null
  /** With a city database (SVC_GEOIP_CITY) only. */
  region: string | null
  city: string | null
  /** The campaign path that took the click (issue 28); null = the campaign's default rotation. */
  pathId: number | null
  /**
   * Not stored as a column: the caps this click used up ('cap|period', tracking/caps.ts), which the SQLite click
   * batch adds to cap_counters in its own transaction. Absent for an uncapped click.
   */
  capKeys?: string[]
  /** First page view of the click's landing (pixel.js), epoch ms; null until then. */
  landingViewedAt: number | null
  /** First click-through from the landing to the offer (/r), epoch ms; null until then. */
  landingClickedAt: number | null
  /** Epoch milliseconds. */
  createdAt: number
}

/** One commit's clicks and their row ids (rows[i] is the row of clicks[i]): the click.committed payload. */
export interface CommittedClicks {
  clicks: readonly Click[]
  rows: readonly number[]
}

/** What a conversion states, whoever reported it (a postback today, a webhook later). */
export interface ConversionFacts {
  /** The status as received (already cropped), null when none was sent. */
  status: string | null
  revenue: number
  currency: string | null
  transactionId: string | null
  email: string | null
  /** Conversion time, epoch ms. */
  date: number
}

/** The click a conversion is attributed to, as the conversion row copies it. */
export interface Attribution {
  clickRowId: number
  clickId: string
  campaignId: number
  sourceId: number | null
  offerId: number | null
  landingId: number | null
  /** The click's country (ISO alpha-2) and targeting path (null: default rotation); absent: unknown (issue 28). */
  country?: string | null
  pathId?: number | null
}

/** A conversion type as /postback resolves it and reports read it. */
export interface ConversionType {
  slug: string
  name: string
  include_in_conversions: boolean
  include_in_revenue: boolean
  send_postback: boolean
  negative: boolean
  builtin: boolean
  created_at: string
  updated_at: string
}

/** The payload of `conversion.recorded`: the row as written, plus what its subscribers need of the click. */
export interface RecordedConversion extends Attribution, ConversionFacts {
  id: number
  type: ConversionType
  /** The click came from one of the operator's own IPs: reports leave the conversion out. */
  excluded: boolean
  /** The source's postback URL template (forwarding), null when the source has none. */
  sourcePostbackUrl: string | null
  /** The campaign's id on the source side ({external_id} of the forward URL). */
  campaignExternalId: string | null
  /** revshare cost (docs/costs.md): the campaign's share of `revenue`, in `currency`; 0 for other cost models. */
  cost: number
}
