// Admin API of the conversion side: conversions, conversion types, status map, postback errors, aliases.
import { Elysia, t } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import type { Aliases } from './aliases'
import type { ConversionTypes } from './conversion-types'
import type { ConversionsReader, Query } from './conversions'

/** A repeated query parameter counts once, first occurrence (as on /postback). */
function flat(query: Record<string, unknown>): Query {
  const out: Query = {}
  for (const [k, v] of Object.entries(query)) out[k] = Array.isArray(v) ? String(v[0] ?? '') : v === undefined ? undefined : String(v)
  return out
}

const typeFields = {
  name: t.Optional(t.String()),
  include_in_conversions: t.Optional(t.Boolean()),
  include_in_revenue: t.Optional(t.Boolean()),
  send_postback: t.Optional(t.Boolean()),
  negative: t.Optional(t.Boolean()),
}

export function conversionAdminRoutes(
  ctx: AppContext,
  deps: { aliases: Aliases; types: ConversionTypes; reader: ConversionsReader },
) {
  const { aliases, types, reader } = deps
  return new Elysia({ name: 'postback-admin' })
    .use(adminGuard(ctx))
    .get('/admin/api/conversions', ({ query }) => reader.list(flat(query)), {
      permission: 'conversions:read',
      detail: { tags: ['conversions'], summary: 'List conversions, newest first (filters click_id, campaign_id, type, from, to)' },
    })
    .get('/admin/api/conversions/:id', ({ params }) => reader.get(params.id), {
      permission: 'conversions:read',
      detail: { tags: ['conversions'], summary: 'Get a conversion' },
    })
    .get('/admin/api/postback-errors', ({ query }) => reader.listErrors(flat(query)), {
      permission: 'conversions:read',
      detail: { tags: ['conversions'], summary: 'Postbacks that recorded nothing, newest first (filter reason)' },
    })

    .get('/admin/api/conversion-types', () => ({ items: types.list(), next_cursor: null }), {
      permission: 'conversions:read',
      detail: { tags: ['conversion types'], summary: 'List conversion types (one page: the set is small)' },
    })
    .get('/admin/api/conversion-types/:slug', ({ params }) => types.get(params.slug), {
      permission: 'conversions:read',
      detail: { tags: ['conversion types'], summary: 'Get a conversion type' },
    })
    .post(
      '/admin/api/conversion-types',
      ({ body, set }) => {
        set.status = 201
        return types.create(body)
      },
      {
        permission: 'conversions:write',
        body: t.Object({ slug: t.String(), ...typeFields }),
        detail: { tags: ['conversion types'], summary: 'Create a conversion type' },
      },
    )
    .patch('/admin/api/conversion-types/:slug', ({ params, body }) => types.update(params.slug, body), {
      permission: 'conversions:write',
      body: t.Object({ slug: t.Optional(t.String()), ...typeFields }),
      detail: { tags: ['conversion types'], summary: 'Change a conversion type (built-in ones too)' },
    })
    .delete(
      '/admin/api/conversion-types/:slug',
      ({ params }) => {
        types.remove(params.slug)
        return { ok: true }
      },
      {
        permission: 'conversions:write',
        detail: { tags: ['conversion types'], summary: 'Delete a conversion type (409 when built in or in use)' },
      },
    )

    .get('/admin/api/status-map', () => types.statusMapObject(), {
      permission: 'conversions:read',
      detail: { tags: ['conversion types'], summary: 'Received postback status → conversion type slug' },
    })
    .put('/admin/api/status-map', ({ body }) => types.replaceStatusMap(body), {
      permission: 'conversions:write',
      detail: { tags: ['conversion types'], summary: 'Replace the whole status map' },
    })

    .get('/admin/api/postback-aliases', () => aliases.current(), {
      permission: 'settings:read',
      detail: { tags: ['settings'], summary: 'Effective query-string names of the 7 postback parameters' },
    })
    .put('/admin/api/postback-aliases', ({ body }) => aliases.replace(body), {
      permission: 'settings:write',
      detail: { tags: ['settings'], summary: 'Replace the alias lists of the named parameters (null restores a default)' },
    })
}
