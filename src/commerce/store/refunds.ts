// Refund rows, one module for both engines: the receivers insert them in their transaction; admin reads.
import { raw, sql, whereAll } from '../../db/sql'
import type { Queries, StoreDb } from '../../db/store-db'
import type { MaybeAsync } from '../../lib/steps'
import type { RefundFilter, RefundRow } from './catalog'
import type { NewRefund } from './types'

const REFUND = raw(`id, order_id AS "orderId", source, external_id AS "externalId", amount, currency, conversion_id AS "conversionId",
  created_at AS "createdAt"`)

/** One refund row; a refund already stored (same source and external id) is left as it is. */
export const insertRefund = (q: Queries, r: NewRefund): MaybeAsync<number> =>
  q.run(sql`INSERT INTO refunds (order_id, source, external_id, amount, currency, conversion_id, created_at)
    VALUES (${r.orderId}, ${r.source}, ${r.externalId}, ${r.amount}, ${r.currency}, ${r.conversionId}, ${r.now})
    ON CONFLICT (source, external_id) DO NOTHING`)

export const refundStore = (db: StoreDb) => ({
  listRefunds: (filter: RefundFilter, before: number | undefined, limit: number): Promise<RefundRow[]> =>
    db.all<RefundRow>(sql`SELECT ${REFUND} FROM refunds ${whereAll([
      filter.orderId !== undefined && sql`order_id = ${filter.orderId}`,
      filter.source !== undefined && sql`source = ${filter.source}`,
      before !== undefined && sql`id < ${before}`,
    ])} ORDER BY id DESC LIMIT ${limit}`),

  findRefund: (id: number): Promise<RefundRow | undefined> => db.get<RefundRow>(sql`SELECT ${REFUND} FROM refunds WHERE id = ${id}`),
})
