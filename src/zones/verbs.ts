// Blocked zones (issue 30, docs/zones.md): the sub values (zones) an operator blocked at a traffic source, one
// dated list per source: add many at once (a value already blocked is kept, not repeated), list newest first,
// export as CSV, unblock one. Saved views: a user's named dashboard states, visible to that user only.
import { Type as t } from '@sinclair/typebox'
import { conflict, forbidden, invalid, notFound } from '../lib/errors'
import { csvLine, csvStream, fileName } from '../lib/csv'
import { parseCursor, parseLimit, toPage } from '../lib/paging'
import { defineVerb, shapedBy, type Actor, type VerbSet } from '../lib/verb'
import type { BlockedZoneRow, SavedViewRow, ZoneStore } from './store'

export const DIMENSIONS = ['sub1', 'sub2', 'sub3', 'sub4', 'sub5', 'sub6', 'sub7', 'sub8', 'sub9', 'sub10'] as const
export const MAX_VALUES = 1000
export const MAX_VALUE = 200
export const MAX_REASON = 500
export const MAX_STATE = 2000
export const SCREEN = /^[a-z][a-z0-9-]{0,31}$/

const READ = 'campaigns:read' as const
const WRITE = 'campaigns:write' as const
const iso = (ms: number) => new Date(ms).toISOString()

export const renderZone = (r: BlockedZoneRow) => ({
  id: r.id, source_id: r.sourceId, source_name: r.sourceName, campaign_id: r.campaignId, campaign_name: r.campaignName,
  dimension: r.dimension, value: r.value, reason: r.reason, blocked_at: iso(r.blockedAt), blocked_by: r.blockedBy,
})
export const renderView = (r: SavedViewRow) => ({ id: r.id, screen: r.screen, name: r.name, state: r.state, created_at: iso(r.createdAt) })

/** A query-string id: absent or '' → undefined; else a positive integer or a 400 naming the field. */
function optionalId(raw: string | undefined, field: string): number | undefined {
  if (raw === undefined || raw === '') return undefined
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw invalid(`${field}: must be a positive integer`)
  return Number(raw)
}

/** The values trimmed, empty lines dropped, duplicates dropped (first kept): 1..1000 of 1..200 characters. */
export function cleanValues(values: readonly string[]): string[] {
  const out: string[] = []
  const seen = new Set<string>()
  values.forEach((v, i) => {
    const s = v.trim()
    if (s.length > MAX_VALUE) throw invalid(`values.${i}: must be at most ${MAX_VALUE} characters`)
    if (s === '' || seen.has(s)) return
    seen.add(s)
    out.push(s)
  })
  if (out.length === 0) throw invalid('values: at least one non-empty value is required')
  return out
}

const ListInput = t.Object({
  source_id: t.Optional(t.String({ description: 'only this traffic source' })),
  campaign_id: t.Optional(t.String({ description: "only what blocks this campaign: its own rows and the source-wide ones" })),
  limit: t.Optional(t.String({ description: 'rows per page (default 50, at most 500)' })),
  cursor: t.Optional(t.String({ description: 'next_cursor of the previous page' })),
})

export const AddInput = t.Object({
  source_id: t.Integer({ minimum: 1, description: 'the traffic source the values were blocked at' }),
  campaign_id: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.Null()], { description: 'only for this campaign; absent or null: every campaign of the source' })),
  dimension: t.Union(DIMENSIONS.map((d) => t.Literal(d)), { description: 'the click field holding the values: sub1..sub10' }),
  values: t.Array(t.String({ maxLength: MAX_VALUE + 100 }), {
    minItems: 1, maxItems: MAX_VALUES, description: `1..${MAX_VALUES} values of 1..${MAX_VALUE} characters (trimmed; repeats and empty ones dropped)`,
  }),
  reason: t.Optional(t.Union([t.String({ maxLength: MAX_REASON }), t.Null()], { description: 'why (shown in the list and the export)' })),
})

const ViewInput = t.Object({
  screen: t.String({ description: 'the dashboard screen (reports, campaigns…): lowercase letters, digits, "-"' }),
  name: t.String({ description: '1..100 characters, unique per user and screen' }),
  state: t.String({ description: `the screen's query string, at most ${MAX_STATE} characters` }),
})

/** A CSV file produced page by page (the REST route streams it; an MCP tool reads it whole). */
export class ZoneCsv {
  constructor(readonly name: string, readonly body: ReadableStream<Uint8Array>) {}
}

export const CSV_HEADER = ['blocked_at', 'value', 'dimension', 'campaign', 'reason', 'by'] as const

/** Who blocked: the signed-in user; none for an agent token (its audit row names it) or the system. */
const userId = (actor: Actor): number | null => (actor.kind === 'admin' && !actor.user.agent ? actor.user.id : null)
const PAGE = 500

export function zoneVerbs(store: ZoneStore, now: () => number = Date.now) {
  async function source(id: number, field = 'source_id') {
    const s = await store.source(id)
    if (!s) throw invalid(`${field}: no source ${id}`)
    return s
  }

  const list = defineVerb({
    name: 'blocked-zones.list',
    summary: 'List blocked zones (sub values blocked at a traffic source), newest first',
    permission: READ,
    input: ListInput,
    async run(_actor, input) {
      const sourceId = optionalId(input.source_id, 'source_id')
      const campaignId = optionalId(input.campaign_id, 'campaign_id')
      const limit = parseLimit(input.limit)
      const rows = await store.list({ sourceId, campaignId }, parseCursor(input.cursor), limit)
      return toPage(rows, { limit }, (r) => r)
    },
  })

  const get = defineVerb({
    name: 'blocked-zones.get', summary: 'Get one blocked zone', permission: READ,
    input: t.Object({ id: t.Integer({ minimum: 1 }) }),
    async run(_actor, input) {
      const row = await store.get(input.id)
      if (!row) throw notFound('blocked zone not found')
      return row
    },
  })

  const add = defineVerb({
    name: 'blocked-zones.add',
    summary: 'Record zones blocked at a traffic source (1..1000 values of one sub dimension); a value already on the list is kept as it was',
    permission: WRITE,
    input: AddInput,
    async run(actor, input) {
      const values = cleanValues(input.values)
      await source(input.source_id)
      const campaignId = input.campaign_id ?? null
      if (campaignId !== null) {
        const c = await store.campaign(campaignId)
        if (!c) throw invalid(`campaign_id: no campaign ${campaignId}`)
        // A campaign of another source never gets this source's traffic: blocking there would record nothing real.
        if (c.sourceId !== null && c.sourceId !== input.source_id) throw invalid(`campaign_id: campaign ${campaignId} runs on another source (${c.sourceId})`)
      }
      const reason = input.reason?.trim() ? input.reason.trim() : null
      const { ids, added } = await store.add({
        sourceId: input.source_id, campaignId, dimension: input.dimension, values, reason, by: userId(actor), at: now(),
      })
      const rows = await store.byIds(ids)
      return { items: rows.map((r) => ({ ...renderZone(r), new: added.has(r.id) })), added: added.size, kept: ids.length - added.size }
    },
  })

  const remove = defineVerb({
    name: 'blocked-zones.delete', summary: 'Unblock: remove one value from the blocked list', permission: WRITE,
    input: t.Object({ id: t.Integer({ minimum: 1 }) }),
    async run(_actor, input) {
      if (!(await store.delete(input.id))) throw notFound('blocked zone not found')
      return { ok: true as const }
    },
  })

  const exportCsv = defineVerb({
    name: 'blocked-zones.export',
    summary: "Export a source's blocked zones as CSV (blocked_at ISO, value, dimension, campaign, reason, by), newest first",
    permission: READ,
    input: t.Object({ source_id: t.String({ description: 'the traffic source' }), campaign_id: t.Optional(t.String()) }),
    async run(_actor, input) {
      const sourceId = optionalId(input.source_id, 'source_id')
      if (sourceId === undefined) throw invalid('source_id: is required')
      const campaignId = optionalId(input.campaign_id, 'campaign_id')
      const s = await source(sourceId)
      let before: number | undefined
      let done = false
      let header = true
      const next = async (): Promise<string | null> => {
        if (done) return null
        let text = header ? csvLine([...CSV_HEADER]) : ''
        header = false
        const rows = await store.list({ sourceId, campaignId }, before, PAGE)
        const page = rows.slice(0, PAGE)
        for (const r of page) text += csvLine([iso(r.blockedAt), r.value, r.dimension, r.campaignName ?? (r.campaignId === null ? '' : String(r.campaignId)), r.reason, r.blockedBy])
        if (rows.length <= PAGE) done = true
        else before = page[page.length - 1]!.id
        return text === '' ? null : text
      }
      return new ZoneCsv(fileName(['blocked-zones', s.name]), csvStream(next))
    },
  })

  const listViews = defineVerb({
    name: 'saved-views.list', summary: "List your saved dashboard views (a screen's state under a name)", permission: null,
    input: t.Object({ screen: t.Optional(t.String({ description: 'only this screen' })) }),
    async run(actor, input) {
      const id = ownerOf(actor)
      const screen = input.screen === undefined || input.screen === '' ? undefined : input.screen
      return { items: (await store.views(id, screen)).map(renderView) }
    },
  })

  const createView = defineVerb({
    name: 'saved-views.create', summary: 'Save a dashboard view under a name (yours only; a name taken on that screen: conflict)', permission: null,
    input: ViewInput,
    async run(actor, input) {
      const id = ownerOf(actor)
      const screen = input.screen.trim()
      if (!SCREEN.test(screen)) throw invalid('screen: must be 1-32 lowercase letters, digits or "-", starting with a letter')
      const name = input.name.trim()
      if (name === '' || name.length > 100) throw invalid('name: must be 1 to 100 characters')
      if (input.state.length > MAX_STATE) throw invalid(`state: must be at most ${MAX_STATE} characters`)
      const state = input.state.replace(/^[?#]+/, '')
      const row = await store.addView(id, { screen, name, state }, now())
      if (!row) throw conflict(`name: you already have a view named ${JSON.stringify(name)} on ${screen}`)
      return renderView(row)
    },
  })

  const deleteView = defineVerb({
    name: 'saved-views.delete', summary: 'Delete one of your saved views', permission: null,
    input: t.Object({ id: t.Integer({ minimum: 1 }) }),
    async run(actor, input) {
      if (!(await store.deleteView(ownerOf(actor), input.id))) throw notFound('saved view not found')
      return { ok: true as const }
    },
  })

  shapedBy(renderZone, list, get)
  return { list, get, add, delete: remove, export: exportCsv, listViews, createView, deleteView } satisfies VerbSet
}

/** Saved views are a dashboard user's: an agent token (user id 0) or the system has none. */
function ownerOf(actor: Actor): number {
  if (actor.kind !== 'admin' || actor.user.agent) throw forbidden('saved views belong to a signed-in dashboard user, not to an agent token')
  return actor.user.id
}

export type ZoneVerbs = ReturnType<typeof zoneVerbs>
