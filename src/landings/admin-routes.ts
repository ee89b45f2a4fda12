// Admin API of what landings collect: leads (list, get, delete, CSV export) and visitor events (list, counts
// per group). Thin: the verbs parse the filters (400 naming the parameter); these routes shape the answers.
import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { docQuery } from '../http/api-docs'
import { firstParam, idParams, okResponse, pageQuery, pageSchema, parseId } from '../http/collection'
import { csvHeaders, csvStream, fileName } from '../lib/csv'
import { adminActor, invoke, shapedBy } from '../lib/verb'
import { EventCountsRecord, GROUP_BY, LeadRecord, renderLead, renderVisitorEvent, VisitorEventRecord, type LandingAdminVerbs } from './admin-verbs'

const moment = 'ISO 8601 date or date-time, or epoch seconds/milliseconds'
const paging = {
  limit: pageQuery.properties.limit.description!,
  cursor: pageQuery.properties.cursor.description!,
}
const leadFilters = {
  landing_id: 'leads of this landing id',
  campaign_id: 'leads of this campaign id',
  click_id: 'leads of this click (UUID)',
  email: 'exact address (normalised before the lookup)',
  from: `created from (inclusive): ${moment}`,
  to: `created before (exclusive): ${moment}`,
}
const eventFilters = {
  name: 'event name (page_view for page views)',
  click_id: 'events of this click (UUID)',
  campaign_id: 'events of this campaign id',
  landing_id: 'events of this landing id',
  from: `from (inclusive): ${moment}`,
  to: `before (exclusive): ${moment}`,
}

/** Every parameter as one string (an array, should one arrive, by its first element): never an array bound into SQL. */
function flat(query: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(query)) out[k] = firstParam(v)
  return out
}

export function landingAdminRoutes(ctx: AppContext, verbs: LandingAdminVerbs) {
  const { leads, events } = verbs
  shapedBy(renderLead, leads.list, leads.get)
  shapedBy(renderVisitorEvent, events.list)
  const leadId = (raw: string) => parseId(raw, 'lead')
  return new Elysia({ name: 'landings-admin' })
    .use(adminGuard(ctx))
    .get('/admin/api/leads', async ({ query, admin }) => {
      const page = await invoke(leads.list, adminActor(admin), flat(query))
      return { items: page.items.map(renderLead), next_cursor: page.next_cursor }
    }, { permission: 'landings:read', query: docQuery({ ...leadFilters, ...paging }), response: pageSchema(LeadRecord), detail: { tags: ['leads'], summary: leads.list.summary } })
    // Before /leads/:id, so "export" is never taken for an id.
    .get('/admin/api/leads/export', async ({ query, admin }) => {
      const next = await invoke(leads.export, adminActor(admin), flat(query))
      return new Response(csvStream(next), { headers: csvHeaders(fileName(['leads'])) })
    }, { permission: 'landings:read', query: docQuery(leadFilters), detail: { tags: ['leads'], summary: leads.export.summary } })
    .get('/admin/api/leads/:id', async ({ params, admin }) => renderLead(await invoke(leads.get, adminActor(admin), { id: leadId(params.id) })),
      { permission: 'landings:read', params: idParams, response: LeadRecord, detail: { tags: ['leads'], summary: leads.get.summary } })
    .delete('/admin/api/leads/:id', ({ params, admin }) => invoke(leads.delete, adminActor(admin), { id: leadId(params.id) }),
      { permission: 'landings:write', params: idParams, response: okResponse, detail: { tags: ['leads'], summary: leads.delete.summary } })
    .get('/admin/api/events', async ({ query, admin }) => {
      const page = await invoke(events.list, adminActor(admin), flat(query))
      return { items: page.items.map(renderVisitorEvent), next_cursor: page.next_cursor }
    }, { permission: 'landings:read', query: docQuery({ ...eventFilters, ...paging }), response: pageSchema(VisitorEventRecord), detail: { tags: ['events'], summary: events.list.summary } })
    .get('/admin/api/events/counts', ({ query, admin }) => invoke(events.counts, adminActor(admin), flat(query)), {
      permission: 'reports:read',
      query: docQuery({ group_by: `one of ${GROUP_BY.join(', ')} (required)`, ...eventFilters }),
      response: EventCountsRecord,
      detail: { tags: ['events'], summary: events.counts.summary },
    })
}
