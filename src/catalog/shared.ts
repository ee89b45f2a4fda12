// What the four catalog entities share: their verbs' dependencies and the catalog.changed announcement every
// write makes once it has committed. (The id and paging inputs every feature's verbs share: lib/verb-inputs.ts.)
import type { DomainEvents } from '../events'
import type { EventBus } from '../lib/event-bus'
import type { CatalogStore } from './store/types'

export interface CatalogDeps {
  store: CatalogStore
  events: EventBus
}

type Change = DomainEvents['catalog.changed']

/** After-commit only: the store's write has committed by the time a verb calls this. */
export const announce = (events: EventBus, entity: Change['entity'], id: number, action: Change['action']) =>
  events.committed('catalog.changed', { entity, id, action })
