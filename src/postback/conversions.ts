// Read side of conversions and postback errors for the admin API.
import { toPage, parseCursor, parseLimit } from '../lib/paging'
import { invalid, notFound } from '../lib/errors'
import { parseMoment } from './parse'
import type { ConversionRecord, PostbackErrorRecord, PostbackQueries } from './queries'
import { ERROR_REASONS } from './receive'

export type Query = Record<string, string | undefined>

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


function idFilter(q: Query, name: string): number | undefined {
  const raw = q[name]
  if (raw === undefined || raw === '') return undefined
  if (!/^\d{1,15}$/.test(raw)) throw invalid(`${name}: must be a whole number`)
  return Number(raw)
}

function timeFilter(q: Query, name: string): number | undefined {
  const raw = q[name]
  if (raw === undefined || raw === '') return undefined
  const t = parseMoment(raw)
  if (t === null) throw invalid(`${name}: must be an ISO 8601 date or epoch seconds/milliseconds`)
  return t
}


export class ConversionsReader {
  constructor(private readonly q: PostbackQueries) {}

  /** Newest received first; `from` inclusive and `to` exclusive, both on the conversion date. */
  list(query: Query) {
    const limit = parseLimit(query.limit)
    const rows = this.q.listConversions({
      clickId: query.click_id ? query.click_id.trim().toLowerCase() : undefined,
      campaignId: idFilter(query, 'campaign_id'),
      type: query.type || undefined,
      from: timeFilter(query, 'from'),
      to: timeFilter(query, 'to'),
      before: parseCursor(query.cursor),
      limit: limit + 1,
    })
    return toPage(rows, { limit }, conversionToApi)
  }

  get(idRaw: string) {
    const row = /^\d{1,15}$/.test(idRaw) ? this.q.conversionById(Number(idRaw)) : null
    if (!row) throw notFound('conversion not found')
    return conversionToApi(row)
  }

  listErrors(query: Query) {
    const limit = parseLimit(query.limit)
    const reason = query.reason || undefined
    if (reason !== undefined && !(ERROR_REASONS as readonly string[]).includes(reason)) {
      throw invalid(`reason: must be one of ${ERROR_REASONS.join(', ')}`)
    }
    return toPage(this.q.listErrors({ reason, before: parseCursor(query.cursor), limit: limit + 1 }), { limit }, errorToApi)
  }
}
