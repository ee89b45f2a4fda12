// Stored webhook deliveries (webhook_events), one module for both engines (db/store-db.ts). The receivers'
// two writes (recordDelivery, finishEvent) take the Queries of the caller's transaction; the rest are admin
// reads and the retention prune.
import { raw, sql, whereAll, type Sql } from '../../db/sql'
import type { Queries, StoreDb } from '../../db/store-db'
import type { MaybeAsync } from '../../lib/steps'
import type { EventResult, NewWebhookEvent, WebhookEventFilter, WebhookEventRow } from './types'

// Aliases in double quotes: camelCase on both engines. Lists leave the payload out (up to 64 KB a row).
const cols = (payload: string) => raw(`id, source, external_id AS "externalId", dedup_key AS "dedupKey", topic,
  order_external_id AS "orderExternalId", signature, outcome, error, click_id AS "clickId", order_id AS "orderId",
  conversion_id AS "conversionId", ${payload}, deliveries, received_at AS "receivedAt", last_received_at AS "lastReceivedAt"`)
const EVENT = cols('payload')
const LISTED = cols('CAST(NULL AS text) AS payload')

const insertEvent = (e: NewWebhookEvent, dedupKey: string | null): Sql => sql`INSERT INTO webhook_events (source, external_id, dedup_key,
  topic, order_external_id, signature, outcome, error, payload, deliveries, received_at, last_received_at)
  VALUES (${e.source}, ${e.externalId}, ${dedupKey}, ${e.topic}, ${e.orderExternalId}, ${e.signature}, ${e.outcome}, ${e.error},
  ${e.payload}, 1, ${e.receivedAt}, ${e.receivedAt})`

/** A value or a Promise of it, mapped without an await (so SQLite stays synchronous). */
export const then = <T, R>(v: MaybeAsync<T>, f: (t: T) => R): MaybeAsync<R> => (v instanceof Promise ? v.then(f) : f(v))

const delivered = (row: { id: number; deliveries: number } | undefined) => ({ id: Number(row!.id), duplicate: Number(row!.deliveries) > 1 })

/**
 * Inserts the event; a dedup key already stored (same source) counts a redelivery on that row instead. A NULL
 * dedup_key never conflicts (NULLs are distinct in a unique index). On Postgres a second delivery of one key
 * while the first's transaction is open waits on the unique index: after its COMMIT it takes the conflict
 * branch (duplicate), after a rollback it inserts.
 */
export function recordDelivery(q: Queries, e: NewWebhookEvent): MaybeAsync<{ id: number; duplicate: boolean }> {
  return then(q.get<{ id: number; deliveries: number }>(sql`${insertEvent(e, e.dedupKey)}
    ON CONFLICT (source, dedup_key) DO UPDATE SET deliveries = webhook_events.deliveries + 1, last_received_at = excluded.received_at
    RETURNING id, deliveries`), delivered)
}

export const finishEvent = (q: Queries, id: number, r: EventResult): MaybeAsync<number> =>
  q.run(sql`UPDATE webhook_events SET outcome = ${r.outcome}, error = ${r.error}, click_id = ${r.clickId}, order_id = ${r.orderId},
    conversion_id = ${r.conversionId} WHERE id = ${id}`)

export const eventStore = (db: StoreDb) => ({
  /** Oldest first, `limit` at a time; SKIP LOCKED on Postgres so two instances pruning at once take different rows. */
  pruneEvents: (cutoff: number, limit: number): Promise<number> =>
    db.run(sql`DELETE FROM webhook_events WHERE id IN (
      SELECT id FROM webhook_events WHERE received_at < ${cutoff} ORDER BY received_at LIMIT ${limit} ${db.skipLocked})`),

  /** One statement; never deduplicated, so its dedup_key is stored as NULL. */
  recordRefused: async (e: NewWebhookEvent): Promise<number> =>
    (await db.get<{ id: number }>(sql`${insertEvent(e, null)} RETURNING id`))!.id,

  listEvents: (filter: WebhookEventFilter, before: number | undefined, limit: number): Promise<WebhookEventRow[]> =>
    db.all<WebhookEventRow>(sql`SELECT ${LISTED} FROM webhook_events ${whereAll([
      filter.source !== undefined && sql`source = ${filter.source}`,
      filter.outcome !== undefined && sql`outcome = ${filter.outcome}`,
      filter.orderExternalId !== undefined && sql`order_external_id = ${filter.orderExternalId}`,
      filter.clickId !== undefined && sql`click_id = ${filter.clickId}`,
      before !== undefined && sql`id < ${before}`,
    ])} ORDER BY id DESC LIMIT ${limit}`),

  findEvent: (id: number): Promise<WebhookEventRow | undefined> =>
    db.get<WebhookEventRow>(sql`SELECT ${EVENT} FROM webhook_events WHERE id = ${id}`),
})
