// HTTP shapes every admin collection shares (CONTRACT.md §2): the paging query, the page and id schemas,
// path ids. The paging rules themselves live in lib/paging.ts, shared with the other surfaces.
import { t } from 'elysia'
import { notFound } from '../lib/errors'
import { DEFAULT_LIMIT, MAX_LIMIT } from '../lib/paging'

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

export const okResponse = t.Object({ ok: t.Literal(true) })
export const errorSchema = t.Object({ error: t.String() })
