import type { AnyDatabase } from '../../db/engine'
import { EmailListStore } from './lists'
import { EmailOutboxStore } from './outbox'
import type { OutboxStore } from './outbox-types'
import type { EmailStore } from './types'

/** The email lists and subscribers (both engines). */
export function emailStore(database: AnyDatabase): EmailStore {
  return new EmailListStore(database)
}

/** The outbox (both engines). */
export function outboxStore(database: AnyDatabase): OutboxStore {
  return new EmailOutboxStore(database)
}
