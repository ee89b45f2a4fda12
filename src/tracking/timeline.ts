// One timeline per click (issue 30, docs/timeline.md): the click with every stored field and the names of what
// it points at, then what happened to it in time order: landing view, click-through to the offer, each
// conversion's postback (its raw query), each status change, each forward to the traffic source with its
// HTTP result and latency. And the clicks list the report rows link to (newest first, keyset-paged).
import { invalid } from '../lib/errors'
import { iso } from '../lib/time'
import { parseRange } from '../reports'
import type { ClickView } from './verbs'
import { fillClickMacros } from './template'
import { SUB_FIELDS, type StoredClick } from './store/click'
import type { ClickListFilter, ClickListRow, TimelineConversion, TimelineHistory, TimelineJob, TimelineReads } from './store/timeline-reads'

export const EVENT_KINDS = ['click', 'landing_view', 'landing_click', 'postback', 'status_change', 'forward'] as const
export type EventKind = (typeof EVENT_KINDS)[number]
export interface TimelineEvent { at: string; kind: EventKind; [field: string]: unknown }

/**
 * A forward job's result or error read back (postback/forward.ts writes `HTTP 200 in 42 ms`, and a failure
 * `HTTP 503: … (after 42 ms)`); jobs from before issue 30 have no latency.
 */
export function forwardOutcome(text: string | null): { http_status: number | null; latency_ms: number | null } {
  if (!text) return { http_status: null, latency_ms: null }
  const status = /^HTTP (\d{3})\b/.exec(text)
  const ms = / in (\d+) ms$/.exec(text) ?? /\(after (\d+) ms\)/.exec(text)
  return { http_status: status ? Number(status[1]) : null, latency_ms: ms ? Number(ms[1]) : null }
}

function forwardUrl(payload: string, click: StoredClick): string | null {
  try {
    const p = JSON.parse(payload) as { url?: unknown }
    return typeof p.url === 'string' ? fillClickMacros(p.url, click) : null
  } catch {
    return null
  }
}

/**
 * A conversion's states, oldest first (as conversions.get's status_history): a history row holds the state
 * before a change, the row itself the current one. The first state is the postback that recorded it; each
 * next one a status change (or, with reversal_id, a negative postback recorded against it on its own).
 */
function conversionEvents(c: TimelineConversion, rows: readonly TimelineHistory[]): TimelineEvent[] {
  const states = [...rows, c].map((s) => ({ type: s.type, status: s.status, revenue: s.revenue, query: 'query' in s ? s.query : s.postback_query }))
  const first = states[0]!
  const out: TimelineEvent[] = [{
    at: iso(c.created_at), kind: 'postback', conversion_id: c.id, query: first.query, type: first.type, status: first.status,
    revenue: first.revenue, currency: c.currency, transaction_id: c.transaction_id, date: iso(c.date),
    ...(c.forward_warning ? { forward_warning: c.forward_warning } : {}),
  }]
  for (let i = 1; i < states.length; i++) {
    const h = rows[i - 1]!
    const s = states[i]!
    out.push({
      at: iso(h.changed_at), kind: 'status_change', conversion_id: c.id, from: { type: states[i - 1]!.type, status: states[i - 1]!.status, revenue: states[i - 1]!.revenue },
      type: s.type, status: s.status, revenue: s.revenue, currency: c.currency, query: h.reversal_id === null ? s.query : null, reversal_id: h.reversal_id,
    })
  }
  return out
}

/** `click`: the URL as the job sends it, the click's macros filled as the job fills them (tracking/template.ts). */
function forwardEvent(j: TimelineJob & { conversion_id: number }, click: StoredClick): TimelineEvent {
  // The last attempt's outcome: the result when done, else the last error (a retried job keeps both).
  const outcome = forwardOutcome(j.status === 'done' ? j.result : j.last_error)
  return {
    at: iso(j.updated_at), kind: 'forward', job_id: j.id, conversion_id: j.conversion_id, status: j.status, attempts: j.attempts,
    max_attempts: j.max_attempts, result: j.result, last_error: j.last_error, ...outcome, url: forwardUrl(j.payload, click),
    created_at: iso(j.created_at), next_run_at: j.status === 'pending' ? iso(j.next_run_at) : null,
  }
}

const ORDER = new Map<string, number>(EVENT_KINDS.map((k, i) => [k, i]))

/** The click's stored row → the timeline answer (`view` is clicks.get's rendering of the same click). */
export async function clickTimeline(reads: TimelineReads, c: StoredClick, view: ClickView, costCurrency: string) {
  const [names, conversions] = await Promise.all([reads.names(c), reads.conversions(c.row)])
  const ids = conversions.map((x) => x.id)
  const [history, forwards] = await Promise.all([reads.history(ids), reads.forwards(ids)])
  const events: TimelineEvent[] = [{ at: iso(c.createdAt), kind: 'click', campaign_id: c.campaignId, offer_id: c.offerId, landing_id: c.landingId }]
  if (c.landingViewedAt !== null) events.push({ at: iso(c.landingViewedAt), kind: 'landing_view', landing_id: c.landingId })
  if (c.landingClickedAt !== null) events.push({ at: iso(c.landingClickedAt), kind: 'landing_click', offer_id: c.offerId })
  for (const conv of conversions) events.push(...conversionEvents(conv, history.filter((h) => h.conversion_id === conv.id)))
  for (const j of forwards) events.push(forwardEvent(j, c))
  // ISO strings of one format sort as times; a tie keeps the story's order (a click before its landing view).
  events.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : ORDER.get(a.kind)! - ORDER.get(b.kind)!))
  return {
    click: {
      ...view,
      ...names,
      // A click on the default rotation has no path row.
      path_name: c.pathId === null ? 'default' : names.path_name,
      cost_currency: costCurrency,
      landing_viewed_at: c.landingViewedAt === null ? null : iso(c.landingViewedAt),
      landing_clicked_at: c.landingClickedAt === null ? null : iso(c.landingClickedAt),
    },
    events,
  }
}

// ---- the clicks list ----

export const CLICK_LIST_MAX = 200

/** The clicks list's query documentation (the verb parses each value: a 400 names the field). */
export const CLICK_LIST_QUERY: Record<string, string> = {
  from: 'start (inclusive), as reports take it: YYYY-MM-DD (local midnight in tz), a date-time, or epoch seconds/milliseconds; default 30 local days before to',
  to: 'end (exclusive), the same forms; default the next local midnight',
  tz: 'IANA time zone of the dates (default: the time_zone setting)',
  campaign_id: 'only this campaign', source_id: 'only this source', offer_id: 'only this offer', landing_id: 'only this landing',
  country: 'two-letter country code', device: 'device type (desktop, mobile, tablet…)',
  ...Object.fromEntries(SUB_FIELDS.map((s) => [s, `only clicks whose ${s} is exactly this`])),
  limit: `clicks per page, 1..200 (default 50)`,
  cursor: 'next_cursor of the previous page',
}
const CLICK_LIST_DEFAULT = 50

const present = (v: string | undefined): v is string => v !== undefined && v !== ''

function idParam(q: Record<string, string | undefined>, name: string): number | undefined {
  const v = q[name]
  if (!present(v)) return undefined
  if (!/^\d{1,15}$/.test(v.trim())) throw invalid(`${name}: must be a whole number`)
  return Number(v.trim())
}

function textParam(q: Record<string, string | undefined>, name: string, max: number): string | undefined {
  const v = q[name]
  if (!present(v)) return undefined
  if (v.length > max) throw invalid(`${name}: at most ${max} characters`)
  return v
}

/** `limit` 1..200 (default 50); `cursor` is `<created_at ms>.<row>` from the previous page's next_cursor. */
export function parseClickList(q: Record<string, string | undefined>, timeZone: string, now = Date.now()): ClickListFilter {
  const range = parseRange(q, now, timeZone)
  let limit = CLICK_LIST_DEFAULT
  if (present(q.limit)) {
    if (!/^\d{1,4}$/.test(q.limit) || Number(q.limit) < 1 || Number(q.limit) > CLICK_LIST_MAX) throw invalid(`limit: must be a whole number from 1 to ${CLICK_LIST_MAX}`)
    limit = Number(q.limit)
  }
  let before: ClickListFilter['before']
  if (present(q.cursor)) {
    const m = /^(\d{1,15})\.(\d{1,15})$/.exec(q.cursor)
    if (!m) throw invalid('cursor: invalid cursor')
    before = { createdAt: Number(m[1]), row: Number(m[2]) }
  }
  const country = textParam(q, 'country', 2)
  if (country !== undefined && !/^[A-Za-z]{2}$/.test(country)) throw invalid('country: must be a two-letter country code')
  const subs: ClickListFilter['subs'] = {}
  for (const s of SUB_FIELDS) {
    const v = textParam(q, s, 255)
    if (v !== undefined) subs[s] = v
  }
  const ids = { campaignId: idParam(q, 'campaign_id'), sourceId: idParam(q, 'source_id'), offerId: idParam(q, 'offer_id'), landingId: idParam(q, 'landing_id') }
  return {
    from: range.from, to: range.to, limit, subs, before,
    ...Object.fromEntries(Object.entries(ids).filter(([, v]) => v !== undefined)),
    ...(country === undefined ? {} : { country: country.toUpperCase() }),
    ...(present(q.device) ? { device: textParam(q, 'device', 32)! } : {}),
  }
}

function listItem(r: ClickListRow) {
  return {
    click_id: r.click_id, created_at: iso(r.created_at), campaign_id: r.campaign_id, campaign_name: r.campaign_name,
    source_id: r.source_id, source_name: r.source_name, offer_id: r.offer_id, offer_name: r.offer_name, landing_id: r.landing_id,
    country: r.country, device_type: r.device_type,
    sub1: r.sub1, sub2: r.sub2, sub3: r.sub3, sub4: r.sub4, sub5: r.sub5, sub6: r.sub6, sub7: r.sub7, sub8: r.sub8, sub9: r.sub9, sub10: r.sub10,
    cost: r.cost, converted: r.converted === 1,
  }
}

export async function clickList(reads: TimelineReads, f: ClickListFilter, costCurrency: string) {
  const rows = await reads.list({ ...f, limit: f.limit + 1 })
  const shown = rows.length > f.limit ? rows.slice(0, f.limit) : rows
  const last = shown[shown.length - 1]
  return {
    items: shown.map(listItem),
    next_cursor: rows.length > f.limit && last ? `${last.created_at}.${last.row}` : null,
    cost_currency: costCurrency,
  }
}
