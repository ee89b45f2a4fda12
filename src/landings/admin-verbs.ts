// The admin verbs of what landings collect (section landings): leads from the lead forms, and the visitor
// events browsers report (page views, custom events), whose counts per group also feed the reports
// (reports:read). Filters arrive as query-string text and are parsed here, with a 400 naming the parameter.
import { Type } from '@sinclair/typebox'
import { PageInput, IdInput } from '../lib/verb-inputs'
import { normalizeEmail } from '../lib/email-address'
import { normalizeClickId } from '../lib/click-id'
import { csvLine } from '../lib/csv'
import { invalid, notFound } from '../lib/errors'
import { Int } from '../lib/fields'
import { parsePage, toPage } from '../lib/paging'
import { iso, momentFilter } from '../lib/time'
import { defineVerb } from '../lib/verb'
import type { LeadFilter, LeadRow, LeadStore, VisitorEventFilter, VisitorEventRow, VisitorEventStore } from './store/types'

type Query = Record<string, string | undefined>

export const GROUP_BY = ['name', 'campaign', 'landing', 'day'] as const
export type GroupBy = (typeof GROUP_BY)[number]

/** Rows per store read of an export (the store returns up to limit + 1). */
const EXPORT_PAGE = 1000
export const LEAD_EXPORT_COLUMNS = ['id', 'email', 'name', 'landing_id', 'campaign_id', 'click_id', 'ip', 'created_at', 'fields']

/** landing_id and campaign_id are int4 columns on Postgres. */
const MAX_ID = 2_147_483_647

// ── records ──

export const LeadRecord = Type.Object({
  id: Int(),
  email: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  landing_id: Int(),
  campaign_id: Type.Union([Int(), Type.Null()]),
  click_id: Type.Union([Type.String(), Type.Null()]),
  fields: Type.Record(Type.String(), Type.String(), { description: 'the custom form fields' }),
  ip: Type.Union([Type.String(), Type.Null()]),
  user_agent: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
})

export const VisitorEventRecord = Type.Object({
  id: Int(),
  name: Type.String({ description: "page_view for a landing's page views; any other name is a custom event" }),
  click_id: Type.Union([Type.String(), Type.Null()]),
  campaign_id: Type.Union([Int(), Type.Null()]),
  landing_id: Type.Union([Int(), Type.Null()]),
  props: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: 'the properties the page sent, or null' }),
  url: Type.Union([Type.String(), Type.Null()]),
  ip: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
})

export const EventCountsRecord = Type.Object({
  rows: Type.Array(Type.Object({
    key: Type.Union([Type.String(), Type.Number(), Type.Null()], { description: 'event name, campaign or landing id (null: none), or UTC day YYYY-MM-DD' }),
    count: Int(),
  })),
})

/** A JSON object text as an object; anything else (or unparsable text) as null. */
function jsonObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null
  try {
    const v = JSON.parse(text) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
  } catch {
    return null
  }
}

export const renderLead = (r: LeadRow): typeof LeadRecord.static => ({
  id: r.id,
  email: r.email,
  name: r.name,
  landing_id: r.landingId,
  campaign_id: r.campaignId,
  click_id: r.clickId,
  fields: (jsonObject(r.fields) ?? {}) as Record<string, string>,
  ip: r.ip,
  user_agent: r.userAgent,
  created_at: iso(r.createdAt),
})

export const renderVisitorEvent = (r: VisitorEventRow): typeof VisitorEventRecord.static => ({
  id: r.id,
  name: r.name,
  click_id: r.clickId,
  campaign_id: r.campaignId,
  landing_id: r.landingId,
  props: jsonObject(r.props),
  url: r.url,
  ip: r.ip,
  created_at: iso(r.createdAt),
})

/** One lead as a CSV line; its custom fields as one JSON object (names differ from lead to lead), empty when none. */
const exportLine = (r: LeadRow) =>
  csvLine([r.id, r.email, r.name, r.landingId, r.campaignId, r.clickId, r.ip, iso(r.createdAt), r.fields === '{}' ? '' : r.fields])

// ── filters ──

const text = () => Type.Optional(Type.String())
const LeadQuery = Type.Object({ landing_id: text(), campaign_id: text(), click_id: text(), email: text(), from: text(), to: text() })
const EventQuery = Type.Object({ name: text(), click_id: text(), campaign_id: text(), landing_id: text(), from: text(), to: text() })

const given = (q: Query, name: string): string | undefined => (q[name] === undefined || q[name] === '' ? undefined : q[name])

function idFilter(q: Query, name: string): number | undefined {
  const raw = given(q, name)
  if (raw === undefined) return undefined
  if (!/^\d{1,10}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_ID) throw invalid(`${name}: must be a positive whole number`)
  return Number(raw)
}

function clickFilter(q: Query): string | undefined {
  const raw = given(q, 'click_id')
  if (raw === undefined) return undefined
  const id = normalizeClickId(raw.trim())
  if (!id) throw invalid('click_id: must be a click id (UUID)')
  return id
}

/** `from` inclusive, `to` exclusive, on the time of the lead or event. */
function timeRange(q: Query): { from?: number; to?: number } {
  const at = (name: string) => momentFilter(given(q, name), name)
  const from = at('from')
  const to = at('to')
  if (from !== undefined && to !== undefined && to <= from) throw invalid('to: must be later than from')
  return { from, to }
}

export function leadFilter(q: Query): LeadFilter {
  let email: string | undefined
  const rawEmail = given(q, 'email')
  if (rawEmail !== undefined) {
    // Stored addresses are normalised: so is the one looked for.
    email = normalizeEmail(rawEmail) ?? undefined
    if (!email) throw invalid('email: not a valid email address')
  }
  return {
    landingId: idFilter(q, 'landing_id'), campaignId: idFilter(q, 'campaign_id'), clickId: clickFilter(q), email, ...timeRange(q),
  }
}

export function visitorEventFilter(q: Query): VisitorEventFilter {
  const name = given(q, 'name')
  if (name !== undefined && name.includes('\u0000')) throw invalid('name: must not contain NUL characters')
  return { name, clickId: clickFilter(q), campaignId: idFilter(q, 'campaign_id'), landingId: idFilter(q, 'landing_id'), ...timeRange(q) }
}

// ── verbs ──

export function landingAdminVerbs({ leads, events }: { leads: LeadStore; events: VisitorEventStore }) {
  const leadVerbs = {
    list: defineVerb({
      name: 'landings.leads.list',
      summary: 'List leads, oldest first (filters landing_id, campaign_id, click_id, email, from, to)',
      permission: 'landings:read',
      input: Type.Composite([LeadQuery, PageInput]),
      async run(_actor, input) {
        const filter = leadFilter(input)
        const page = parsePage(input)
        return toPage(await leads.list(filter, page), page, (r) => r)
      },
    }),
    get: defineVerb({
      name: 'landings.leads.get', summary: 'Get a lead', permission: 'landings:read', input: IdInput,
      async run(_actor, { id }) {
        const row = await leads.find(id)
        if (!row) throw notFound('lead not found')
        return row
      },
    }),
    delete: defineVerb({
      name: 'landings.leads.delete',
      summary: 'Delete a lead (a subscriber enrolled from it stays in its email list: remove it there)',
      permission: 'landings:write',
      input: IdInput,
      async run(_actor, { id }) {
        if (!(await leads.delete(id))) throw notFound('lead not found')
        return { ok: true as const }
      },
    }),
    export: defineVerb({
      name: 'landings.leads.export',
      summary: 'Export leads as CSV, oldest first (filters landing_id, campaign_id, click_id, email, from, to); custom fields as one JSON column',
      permission: 'landings:read',
      input: LeadQuery,
      async run(_actor, input) {
        const filter = leadFilter(input)
        // The first page now: a failing read is an error answer, not a broken CSV.
        let rows = await leads.list(filter, { afterId: 0, limit: EXPORT_PAGE - 1 })
        let header = true
        /** The next block of CSV, or null at the end: one page of leads per pull. */
        return async (): Promise<string | null> => {
          if (rows.length === 0) return header ? ((header = false), csvLine(LEAD_EXPORT_COLUMNS)) : null
          const page = rows
          rows = page.length < EXPORT_PAGE ? [] : await leads.list(filter, { afterId: page.at(-1)!.id, limit: EXPORT_PAGE - 1 })
          const out = (header ? csvLine(LEAD_EXPORT_COLUMNS) : '') + page.map(exportLine).join('')
          header = false
          return out
        }
      },
    }),
  }

  const eventVerbs = {
    list: defineVerb({
      name: 'landings.events.list',
      summary: 'List visitor events (page views and custom events), oldest first (filters name, click_id, campaign_id, landing_id, from, to)',
      permission: 'landings:read',
      input: Type.Composite([EventQuery, PageInput]),
      async run(_actor, input) {
        const filter = visitorEventFilter(input)
        const page = parsePage(input)
        return toPage(await events.list(filter, page), page, (r) => r)
      },
    }),
    counts: defineVerb({
      name: 'landings.events.counts',
      summary: 'Count visitor events per name, campaign, landing or UTC day (same filters), largest first',
      permission: 'reports:read',
      input: Type.Composite([Type.Object({ group_by: text() }), EventQuery]),
      async run(_actor, input) {
        const groupBy = input.group_by
        if (!groupBy || !(GROUP_BY as readonly string[]).includes(groupBy)) throw invalid(`group_by: must be one of ${GROUP_BY.join(', ')}`)
        const filter = visitorEventFilter(input)
        return { rows: await events.count(filter, groupBy as GroupBy) }
      },
    }),
  }

  return { leads: leadVerbs, events: eventVerbs }
}

export type LandingAdminVerbs = ReturnType<typeof landingAdminVerbs>
