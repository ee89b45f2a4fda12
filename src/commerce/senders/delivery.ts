// What a sender module (ecom-a, ecom-b, pay-a, pay-b) is given and what it answers: a delivery as the route
// read it, and a reading of it as plain data that the one pipeline (webhooks.ts) stores and applies.
import type { OrderEvent } from '../orders'

export interface Delivery {
  headers: Headers
  body: Uint8Array
  /** The request's query parameters (ecom-a's legacy ?key=). */
  query: URLSearchParams
  /** The sender's address as the limits count it (lib/ip.ts clientKey: an IPv6 /64 is one); null: unknown. */
  client?: string | null
  /**
   * The address is over its limit of refused deliveries (routes.ts): a valid signature still counts, but
   * nothing it is refused for is stored and ecom-a's legacy ?key= is not even compared (a guessable value).
   */
  throttled?: boolean
}

/** A payment account as the receivers need it (secrets decrypted): commerce/accounts.ts. */
export interface PaymentAccount {
  id: number
  type: string
  webhookSecret: string | null
  clientId: string | null
  clientSecret: string | null
}

/** A verified delivery, read. `topic` and `eventId` are stored on the event row whatever happens next. */
export type Reading =
  /** Nothing to do (stored `ignored`), or an amount svc cannot read (stored `error`): answered 200 either way. */
  | { kind: 'ignored' | 'error'; topic: string | null; eventId: string | null; why: string }
  | {
    kind: 'order'
    topic: string | null
    eventId: string | null
    /** What makes a redelivery a duplicate: the sender's event id when it has one. */
    dedupKey: string
    orderExternalId: string | null
    change: Omit<OrderEvent, 'delivery'>
    /**
     * A payment that counts for a native product (pay-a): the product to look up, whose list the buyer joins
     * (the change's productId and emailListId come from it). Null: none named.
     */
    product?: number | null
  }
