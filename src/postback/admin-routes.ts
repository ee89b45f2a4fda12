// Admin API of the conversion side: thin routes over the conversion, conversion type and alias verbs.
import { Elysia, t } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { docQuery, lenientBody } from '../http/api-docs'
import { pageQuery, parseId } from '../http/collection'
import { adminActor, invoke } from '../lib/verb'
import type { Query } from './conversions'
import { typeFields, type ConversionTypeVerbs } from './type-verbs'
import type { ConversionVerbs } from './verbs'
import { CANONICAL } from './aliases'
import { ERROR_REASONS } from './receive'

const paging = {
  limit: pageQuery.properties.limit.description!,
  cursor: pageQuery.properties.cursor.description!,
}
const moment = 'ISO 8601 date or date-time, or epoch seconds/milliseconds'

/** Documentation only: the verbs parse each value (400 naming the field); unknown keys pass through. */
const conversionsQuery = docQuery({
  click_id: 'conversions of this click (UUID)',
  campaign_id: 'conversions attributed to this campaign id',
  type: 'conversion type slug (sale, lead, …)',
  from: `conversion date from (inclusive): ${moment}`,
  to: `conversion date to (exclusive): ${moment}`,
  ...paging,
})
const postbackErrorsQuery = docQuery({ reason: `one of ${ERROR_REASONS.join(', ')}`, ...paging })

/** Checked entry by entry by the verbs (400s that name the entry), so documented, not validated, here. */
const statusMapBody = lenientBody('the whole map: received postback status (trimmed, lower-cased) → conversion type slug', {
  type: 'object',
  additionalProperties: { type: 'string', description: 'conversion type slug' },
  example: { approved: 'sale', pending: 'lead', declined: 'reject' },
})
const aliasesBody = lenientBody('for each named parameter, its accepted query-string names in priority order; null restores the default list', {
  type: 'object',
  properties: Object.fromEntries(CANONICAL.map((name) => [name, {
    anyOf: [{ type: 'array', items: { type: 'string', maxLength: 64 }, maxItems: 50 }, { type: 'null' }],
  }])),
  additionalProperties: false,
  example: { subid: ['subid', 'click_id', 'aff_sub'], payout: null },
})

/** A repeated query parameter counts once, first occurrence (as on /postback). */
function flat(query: Record<string, unknown>): Query {
  const out: Query = {}
  for (const [k, v] of Object.entries(query)) out[k] = Array.isArray(v) ? String(v[0] ?? '') : v === undefined ? undefined : String(v)
  return out
}

export function conversionAdminRoutes(ctx: AppContext, verbs: ConversionVerbs, typeVerbs: ConversionTypeVerbs) {
  const v = verbs
  const tv = typeVerbs
  return new Elysia({ name: 'postback-admin' })
    .use(adminGuard(ctx))
    .get('/admin/api/conversions', ({ admin, query }) => invoke(v.list, adminActor(admin), flat(query)), {
      permission: 'conversions:read',
      query: conversionsQuery,
      detail: { tags: ['conversions'], summary: v.list.summary },
    })
    .get('/admin/api/conversions/:id', ({ admin, params }) => invoke(v.get, adminActor(admin), { id: parseId(params.id, 'conversion') }), {
      permission: 'conversions:read',
      detail: { tags: ['conversions'], summary: v.get.summary },
    })
    .get('/admin/api/postback-errors', ({ admin, query }) => invoke(v.listErrors, adminActor(admin), flat(query)), {
      permission: 'conversions:read',
      query: postbackErrorsQuery,
      detail: { tags: ['conversions'], summary: v.listErrors.summary },
    })

    .get('/admin/api/conversion-types', ({ admin }) => invoke(tv.list, adminActor(admin), {}), {
      permission: 'conversions:read',
      detail: { tags: ['conversion types'], summary: tv.list.summary },
    })
    .get('/admin/api/conversion-types/:slug', ({ admin, params }) => invoke(tv.get, adminActor(admin), { slug: params.slug }), {
      permission: 'conversions:read',
      detail: { tags: ['conversion types'], summary: tv.get.summary },
    })
    .post(
      '/admin/api/conversion-types',
      async ({ admin, body, set }) => {
        const created = await invoke(tv.create, adminActor(admin), body)
        set.status = 201
        return created
      },
      {
        permission: 'conversions:write',
        body: t.Object({ slug: t.String(), ...typeFields }),
        detail: { tags: ['conversion types'], summary: tv.create.summary },
      },
    )
    .patch('/admin/api/conversion-types/:slug', ({ admin, params, body }) => invoke(tv.update, adminActor(admin), { slug: params.slug, changes: body }), {
      permission: 'conversions:write',
      body: t.Object({ slug: t.Optional(t.String()), ...typeFields }),
      detail: { tags: ['conversion types'], summary: tv.update.summary },
    })
    .delete('/admin/api/conversion-types/:slug', ({ admin, params }) => invoke(tv.delete, adminActor(admin), { slug: params.slug }), {
      permission: 'conversions:write',
      detail: { tags: ['conversion types'], summary: tv.delete.summary },
    })

    .get('/admin/api/status-map', ({ admin }) => invoke(tv.getStatusMap, adminActor(admin), {}), {
      permission: 'conversions:read',
      detail: { tags: ['conversion types'], summary: tv.getStatusMap.summary },
    })
    .put('/admin/api/status-map', ({ admin, body }) => invoke(tv.replaceStatusMap, adminActor(admin), body), {
      permission: 'conversions:write',
      body: statusMapBody,
      detail: { tags: ['conversion types'], summary: tv.replaceStatusMap.summary },
    })

    .get('/admin/api/postback-aliases', ({ admin }) => invoke(v.getAliases, adminActor(admin), {}), {
      permission: 'settings:read',
      detail: { tags: ['settings'], summary: v.getAliases.summary },
    })
    .put('/admin/api/postback-aliases', ({ admin, body }) => invoke(v.replaceAliases, adminActor(admin), body), {
      permission: 'settings:write',
      body: aliasesBody,
      detail: { tags: ['settings'], summary: v.replaceAliases.summary },
    })
}
