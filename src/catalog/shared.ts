// What the four catalog entities share: their verbs' dependencies, the id and paging inputs, and the
// catalog.changed announcement every write makes once it has committed.
import { Type, type TObject } from '@sinclair/typebox'
import type { DomainEvents } from '../events'
import type { EventBus } from '../lib/event-bus'
import { Int } from '../lib/fields'
import { notFound } from '../lib/errors'
import { parsePage, toPage, type Page } from '../lib/paging'
import type { CatalogStore } from './store/types'

export interface CatalogDeps {
  store: CatalogStore
  events: EventBus
}

/** `limit` and `cursor` as a query string gives them; parsePage() checks them (400 naming the field). */
export const PageInput = Type.Object({
  limit: Type.Optional(Type.String()),
  cursor: Type.Optional(Type.String()),
})

export const IdInput = Type.Object({ id: Int({ minimum: 1 }) })

/** A patch schema with the id of the record it changes, flat (`{ id, name, … }`) as an MCP tool takes it. */
export const withId = <T extends TObject>(patch: T) => Type.Composite([IdInput, patch])

/** One page of records and the cursor of the next page (null on the last). */
export interface Listed<R> { items: R[]; next_cursor: string | null }

/** Fetches limit + 1 rows through `fetch` and cuts them into a page. */
export async function listPage<R extends { id: number }>(input: { limit?: string; cursor?: string }, fetch: (page: Page) => Promise<R[]>): Promise<Listed<R>> {
  const page = parsePage(input)
  return toPage(await fetch(page), page, (r) => r)
}

type Change = DomainEvents['catalog.changed']

/** After-commit only: the store's write has committed by the time a verb calls this. */
export const announce = (events: EventBus, entity: Change['entity'], id: number, action: Change['action']) =>
  events.committed('catalog.changed', { entity, id, action })

/** The record a lookup found, or not_found "<what> not found" (the message every catalog 404 carries). */
export async function found<R>(lookup: Promise<R | undefined>, what: string): Promise<R> {
  const row = await lookup
  if (row === undefined) throw notFound(`${what} not found`)
  return row
}
