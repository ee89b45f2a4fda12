// HTTP shapes every admin collection shares (CONTRACT.md §2): the paging query, the page and id schemas,
// path ids, and the five routes of a collection over its verbs. The paging rules themselves live in
// lib/paging.ts, shared with the other surfaces.
import { Elysia, t } from 'elysia'
import type { TSchema } from '@sinclair/typebox'
import type { AppContext } from '../context'
import type { PermissionRef } from '../lib/permissions'
import { notFound } from '../lib/errors'
import { DEFAULT_LIMIT, MAX_LIMIT } from '../lib/paging'
import { adminActor, invoke, shapedBy, type Verb } from '../lib/verb'
import { adminGuard } from './admin-guard'

/** `?limit=&cursor=` of every collection GET. */
export const pageQuery = t.Object({
  limit: t.Optional(t.String({ description: `page size, 1..${MAX_LIMIT} (default ${DEFAULT_LIMIT}; larger values are capped)` })),
  cursor: t.Optional(t.String({ description: 'next_cursor of the previous page' })),
})

/** `{ items, next_cursor }` of one collection page. */
export const pageSchema = <T extends Parameters<typeof t.Array>[0]>(item: T) =>
  t.Object({ items: t.Array(item), next_cursor: t.Union([t.String(), t.Null()]) })

export const idParams = t.Object({ id: t.String({ description: 'integer id' }) })

/** A path id that is not a positive integer names no record: 404 like any unknown id. */
export function parseId(raw: string, what: string): number {
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw notFound(`${what} not found`)
  return Number(raw)
}

/** A repeated query parameter counts once (its first occurrence); never an array bound into SQL. */
export function firstParam(v: unknown): string | undefined {
  if (Array.isArray(v)) return v.length ? String(v[0]) : undefined
  return v === undefined ? undefined : String(v)
}

export const okResponse = t.Object({ ok: t.Literal(true) })
export const errorSchema = t.Object({ error: t.String() })

/** The five verbs of a catalog-style collection (list, get, create, update, delete). */
export interface CollectionVerbs<Row> {
  list: Verb<TSchema, { items: Row[]; next_cursor: string | null }>
  get: Verb<TSchema, Row>
  create: Verb<TSchema, Row>
  update: Verb<TSchema, Row>
  delete: Verb<TSchema, { ok: true }>
}

/**
 * `GET|POST /admin/api/<name>` and `GET|PATCH|DELETE /admin/api/<name>/:id` over a collection's verbs
 * (CONTRACT.md §2). Each route takes its permission and summary from its verb, so the two cannot drift;
 * the permission macro still runs before the body is read (401/403 before any 400).
 */
export function collectionRoutes<Row>(ctx: AppContext, spec: {
  /** Path segment and OpenAPI tag: `campaigns`. */
  name: string
  /** Singular, for "campaign not found". */
  what: string
  verbs: CollectionVerbs<Row>
  render: (row: Row) => unknown
  record: TSchema
  create: TSchema
  patch: TSchema
}) {
  const { name, what, verbs, render } = spec
  const tags = [name]
  const path = `/admin/api/${name}`
  const permission = (v: Verb<TSchema, unknown>) => v.permission as PermissionRef
  const id = (raw: string) => parseId(raw, what)
  // Other surfaces (MCP) show these verbs' records in the same shape as these routes.
  shapedBy(render, verbs.list, verbs.get, verbs.create, verbs.update)
  return new Elysia({ name: `collection-${name}` })
    .use(adminGuard(ctx))
    .get(path, async ({ query, admin }) => {
      const page = await invoke(verbs.list, adminActor(admin), query)
      return { items: page.items.map(render), next_cursor: page.next_cursor }
    }, { permission: permission(verbs.list), query: pageQuery, response: pageSchema(spec.record), detail: { tags, summary: verbs.list.summary } })
    .post(path, async ({ body, set, admin }) => {
      const created = await invoke(verbs.create, adminActor(admin), body)
      set.status = 201
      return render(created)
    }, { permission: permission(verbs.create), body: spec.create, response: { 201: spec.record }, detail: { tags, summary: verbs.create.summary } })
    .get(`${path}/:id`, async ({ params, admin }) => render(await invoke(verbs.get, adminActor(admin), { id: id(params.id) })),
      { permission: permission(verbs.get), params: idParams, response: spec.record, detail: { tags, summary: verbs.get.summary } })
    .patch(`${path}/:id`, async ({ params, body, admin }) =>
      render(await invoke(verbs.update, adminActor(admin), { ...(body as object), id: id(params.id) })),
      { permission: permission(verbs.update), params: idParams, body: spec.patch, response: spec.record, detail: { tags, summary: verbs.update.summary } })
    .delete(`${path}/:id`, ({ params, admin }) => invoke(verbs.delete, adminActor(admin), { id: id(params.id) }),
      { permission: permission(verbs.delete), params: idParams, response: okResponse, detail: { tags, summary: verbs.delete.summary } })
}
