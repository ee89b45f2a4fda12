// The read side of commerce's records (webhook events, orders, refunds, subscriptions): one newest-first
// list with its filters and one get, the same shape for each, built here once.
import { Type, type TObject, type TProperties } from '@sinclair/typebox'
import { IdInput, PageInput } from '../lib/verb-inputs'
import { notFound } from '../lib/errors'
import { parseCursor, parseLimit, toPage } from '../lib/paging'
import { defineVerb } from '../lib/verb'

type Query = Record<string, string | undefined>

export function readVerbs<Row extends { id: number }, F, Q extends TProperties>(spec: {
  /** `commerce.<name>.list|get` */
  name: string
  /** "webhook event", "order"…: the 404 says `<what> not found`. */
  what: string
  listSummary: string
  getSummary: string
  query: TObject<Q>
  filter: (q: Query) => F
  list: (filter: F, before: number | undefined, limit: number) => Promise<Row[]>
  find: (id: number) => Promise<Row | undefined>
}) {
  return {
    list: defineVerb({
      name: `commerce.${spec.name}.list`, summary: spec.listSummary, permission: 'commerce:read',
      input: Type.Composite([spec.query, PageInput]),
      async run(_actor, input) {
        const q = input as unknown as Query
        const filter = spec.filter(q)
        const limit = parseLimit(q.limit)
        return toPage(await spec.list(filter, parseCursor(q.cursor), limit + 1), { limit }, (r) => r)
      },
    }),
    get: defineVerb({
      name: `commerce.${spec.name}.get`, summary: spec.getSummary, permission: 'commerce:read', input: IdInput,
      async run(_actor, { id }) {
        const row = await spec.find(id)
        if (!row) throw notFound(`${spec.what} not found`)
        return row
      },
    }),
  }
}
