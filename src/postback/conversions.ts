// Read side of conversions and postback errors for the admin API.
import { badRequest, notFound } from '../lib/errors'
import { parseMoment } from './parse'
import type { ConversionRecord, PostbackErrorRecord, PostbackQueries } from './queries'
import { ERROR_REASONS } from './receive'

export type Query = Record<string, string | undefined>
export interface Page<T> { items: T[]; next_cursor: string | null }

const iso = (ms: number) => new Date(ms).toISOString()

export function conversionToApi(r: ConversionRecord) {
  return {
    id: r.id,
    click_id: r.click_id,
    revenue: r.revenue,
    currency: r.currency,
    status: r.status,
    type: r.type,
    transaction_id: r.transaction_id,
    email: r.email,
    date: iso(r.date),
    campaign_id: r.campaign_id,
    source_id: r.source_id,
    landing_id: r.landing_id,
    offer_id: r.offer_id,
    created_at: iso(r.created_at),
  }
}

function errorToApi(r: PostbackErrorRecord) {
  return { id: r.id, reason: r.reason, click_id: r.click_id, query: r.query, ip: r.ip, created_at: iso(r.created_at) }
}

/** Same paging rules as every admin collection: default 50, larger values capped at 500. */
export function limitOf(q: Query): number {
  const raw = q.limit
  if (raw === undefined || raw === '') return 50
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1) throw badRequest('limit: must be a whole number from 1 to 500')
  return Math.min(Number(raw), 500)
}

export function cursorOf(q: Query): number | undefined {
  const raw = q.cursor
  if (raw === undefined || raw === '') return undefined
  if (!/^\d{1,15}$/.test(raw)) throw badRequest('cursor: invalid cursor')
  return Number(raw)
}

function idFilter(q: Query, name: string): number | undefined {
  const raw = q[name]
  if (raw === undefined || raw === '') return undefined
  if (!/^\d{1,15}$/.test(raw)) throw badRequest(`${name}: must be a whole number`)
  return Number(raw)
}

function timeFilter(q: Query, name: string): number | undefined {
  const raw = q[name]
  if (raw === undefined || raw === '') return undefined
  const t = parseMoment(raw)
  if (t === null) throw badRequest(`${name}: must be an ISO 8601 date or epoch seconds/milliseconds`)
  return t
}

function page<R extends { id: number }, T>(rows: R[], limit: number, map: (r: R) => T): Page<T> {
  const items = rows.slice(0, limit)
  return { items: items.map(map), next_cursor: rows.length > limit ? String(items[items.length - 1]!.id) : null }
}

export class ConversionsReader {
  constructor(private readonly q: PostbackQueries) {}

  /** Newest received first; `from` inclusive and `to` exclusive, both on the conversion date. */
  list(query: Query) {
    const limit = limitOf(query)
    const rows = this.q.listConversions({
      clickId: query.click_id ? query.click_id.trim().toLowerCase() : undefined,
      campaignId: idFilter(query, 'campaign_id'),
      type: query.type || undefined,
      from: timeFilter(query, 'from'),
      to: timeFilter(query, 'to'),
      before: cursorOf(query),
      limit: limit + 1,
    })
    return page(rows, limit, conversionToApi)
  }

  get(idRaw: string) {
    const row = /^\d{1,15}$/.test(idRaw) ? this.q.conversionById(Number(idRaw)) : null
    if (!row) throw notFound('conversion not found')
    return conversionToApi(row)
  }

  listErrors(query: Query) {
    const limit = limitOf(query)
    const reason = query.reason || undefined
    if (reason !== undefined && !(ERROR_REASONS as readonly string[]).includes(reason)) {
      throw badRequest(`reason: must be one of ${ERROR_REASONS.join(', ')}`)
    }
    return page(this.q.listErrors({ reason, before: cursorOf(query), limit: limit + 1 }), limit, errorToApi)
  }
}
