// What the verbs of every feature share: the id and paging inputs, a page of records, and the 404 of a
// lookup that found nothing (the catalog's verbs wrote them first; email, commerce and landings use them).
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox'
import { Int } from './fields'
import { notFound } from './errors'
import { parsePage, toPage, type Page } from './paging'
import type { PermissionRef } from './permissions'
import { defineVerb } from './verb'

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

/** The record a lookup found, or not_found "<what> not found" (the message every catalog 404 carries). */
export async function found<R>(lookup: Promise<R | undefined>, what: string): Promise<R> {
  const row = await lookup
  if (row === undefined) throw notFound(`${what} not found`)
  return row
}

/** What a write did, for the hook that tells the rest of the system (the catalog's catalog.changed). */
export type WriteAction = 'created' | 'updated' | 'deleted'

/**
 * The five verbs of a plain collection, `<name>.list|get|create|update|delete` in that order (the MCP and
 * OpenAPI listings keep it): list pages through `list`, get answers "<what> not found", delete answers
 * `{ ok: true }`, and each write calls `announce` once the store has written. `create` and `update` keep
 * what is the entity's own: its fields, defaults and checks in their order, then the store's write.
 */
export function crudVerbs<R extends { id: number }, C extends TSchema, P extends TObject>(spec: {
  /** `catalog.sources`, `commerce.products`… */
  name: string
  what: string
  permissions: { read: PermissionRef; write: PermissionRef }
  summaries: Record<'list' | 'get' | 'create' | 'update' | 'delete', string>
  inputs: { create: C; patch: P }
  list: (page: Page) => Promise<R[]>
  find: (id: number) => Promise<R | undefined>
  create: (input: Static<C>) => Promise<R>
  update: (id: number, patch: Static<P>) => Promise<R>
  delete: (id: number) => Promise<unknown>
  announce?: (id: number, action: WriteAction) => void
}) {
  const { name, summaries: summary, permissions: { read, write }, announce } = spec
  return {
    list: defineVerb({
      name: `${name}.list`, summary: summary.list, permission: read, input: PageInput,
      run: (_actor, input) => listPage(input, spec.list),
    }),
    get: defineVerb({
      name: `${name}.get`, summary: summary.get, permission: read, input: IdInput,
      run: (_actor, { id }) => found(spec.find(id), spec.what),
    }),
    create: defineVerb({
      name: `${name}.create`, summary: summary.create, permission: write, input: spec.inputs.create,
      async run(_actor, input) {
        const row = await spec.create(input)
        announce?.(row.id, 'created')
        return row
      },
    }),
    update: defineVerb({
      name: `${name}.update`, summary: summary.update, permission: write, input: withId(spec.inputs.patch),
      async run(_actor, input) {
        const { id, ...patch } = input as unknown as { id: number }
        const row = await spec.update(id, patch as Static<P>)
        announce?.(id, 'updated')
        return row
      },
    }),
    delete: defineVerb({
      name: `${name}.delete`, summary: summary.delete, permission: write, input: IdInput,
      async run(_actor, { id }) {
        await spec.delete(id)
        announce?.(id, 'deleted')
        return { ok: true as const }
      },
    }),
  }
}
