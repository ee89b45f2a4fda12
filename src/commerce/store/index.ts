import type { AnyDatabase } from '../../db/engine'
import { storeDb } from '../../db/store-db'
import { commerceStoreOn } from './orders'
import type { CommerceStore } from './types'

/** The commerce store (webhook events, orders): one module per entity, both engines (db/store-db.ts). */
export function commerceStore(database: AnyDatabase): CommerceStore {
  return commerceStoreOn(storeDb(database))
}
