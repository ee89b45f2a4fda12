// SQL of the postback feature. Hot-path statements are prepared once when the feature is built.
import type { RawDb, RawStatement } from '../db/client'

/** A click with everything attribution and forwarding need, read in one indexed lookup. */
export interface ClickForConversion {
  id: number
  click_id: string
  campaign_id: number
  source_id: number | null
  offer_id: number | null
  landing_id: number | null
  /** 1 when the click came from one of the operator's own IPs (left out of reports). */
  excluded: number
  offer_payout: number | null
  offer_currency: string | null
  source_postback_url: string | null
  campaign_external_id: string | null
}

export interface ConversionRecord {
  id: number
  click_row_id: number
  click_id: string
  campaign_id: number
  source_id: number | null
  offer_id: number | null
  landing_id: number | null
  type: string
  status: string | null
  revenue: number
  currency: string | null
  transaction_id: string | null
  email: string | null
  date: number
  created_at: number
}

export interface PostbackErrorRecord {
  id: number
  reason: string
  click_id: string | null
  query: string
  ip: string | null
  created_at: number
}

export interface ConversionTypeRecord {
  slug: string
  name: string
  include_in_conversions: number
  include_in_revenue: number
  send_postback: number
  negative: number
  builtin: number
  created_at: number
  updated_at: number
}

export interface NewConversion {
  clickRowId: number
  clickId: string
  campaignId: number
  sourceId: number | null
  offerId: number | null
  landingId: number | null
  type: string
  status: string | null
  revenue: number
  currency: string | null
  transactionId: string | null
  email: string | null
  date: number
  now: number
}

/** Keeps the newest rows only: strangers can send unknown click ids at 600/min per address. */
export const POSTBACK_ERRORS_KEEP = 100_000

export class PostbackQueries {
  readonly clickByClickId: RawStatement
  readonly insertConversion: RawStatement
  readonly duplicateExists: RawStatement
  readonly insertError: RawStatement
  readonly pruneErrors: RawStatement
  readonly allTypes: RawStatement
  readonly allStatusMap: RawStatement

  /** `findClickRow` resolves a click id to its row through the tracking feature's click index. */
  constructor(private readonly raw: RawDb, private readonly findClickRow: (clickId: string) => number | undefined) {
    this.clickByClickId = raw.prepare(
      'SELECT c.id, c.click_id, c.campaign_id, c.source_id, c.offer_id, c.landing_id, c.excluded, ' +
        'o.payout AS offer_payout, o.currency AS offer_currency, s.postback_url AS source_postback_url, ' +
        'cp.external_id AS campaign_external_id ' +
        'FROM clicks c LEFT JOIN offers o ON o.id = c.offer_id LEFT JOIN sources s ON s.id = c.source_id ' +
        'LEFT JOIN campaigns cp ON cp.id = c.campaign_id WHERE c.id = $row',
    )
    this.insertConversion = raw.prepare(
      'INSERT INTO conversions (click_row_id, click_id, campaign_id, source_id, offer_id, landing_id, type, status, ' +
        'revenue, currency, transaction_id, email, date, created_at) VALUES ($clickRowId, $clickId, $campaignId, ' +
        '$sourceId, $offerId, $landingId, $type, $status, $revenue, $currency, $transactionId, $email, $date, $now)',
    )
    this.duplicateExists = raw.prepare(
      'SELECT 1 AS hit FROM conversions WHERE click_row_id = $clickRowId AND transaction_id = $transactionId LIMIT 1',
    )
    this.insertError = raw.prepare(
      'INSERT INTO postback_errors (reason, click_id, query, ip, created_at) VALUES ($reason, $clickId, $query, $ip, $now)',
    )
    this.pruneErrors = raw.prepare('DELETE FROM postback_errors WHERE id <= $below')
    this.allTypes = raw.prepare('SELECT * FROM conversion_types ORDER BY builtin DESC, slug')
    this.allStatusMap = raw.prepare('SELECT status, type_slug FROM status_map ORDER BY status')
  }

  findClick(clickId: string): ClickForConversion | null {
    const row = this.findClickRow(clickId)
    return row === undefined ? null : ((this.clickByClickId.get({ row }) as ClickForConversion | undefined) ?? null)
  }

  insertConversionRow(c: NewConversion): number {
    return Number(this.insertConversion.run({ ...c }).lastInsertRowid)
  }

  recordError(reason: string, clickId: string | null, query: string, ip: string, now: number): void {
    const id = Number(this.insertError.run({ reason, clickId, query, ip, now }).lastInsertRowid)
    if (id % 1000 === 0) this.pruneErrors.run({ below: id - POSTBACK_ERRORS_KEEP })
  }

  conversionById(id: number): ConversionRecord | null {
    return (this.raw.prepare('SELECT * FROM conversions WHERE id = $id').get({ id }) as ConversionRecord | undefined) ?? null
  }

  listConversions(f: {
    clickId?: string; campaignId?: number; type?: string; from?: number; to?: number; before?: number; limit: number
  }): ConversionRecord[] {
    const where: string[] = []
    const p: Record<string, unknown> = { limit: f.limit }
    if (f.clickId !== undefined) { where.push('click_id = $clickId'); p.clickId = f.clickId }
    if (f.campaignId !== undefined) { where.push('campaign_id = $campaignId'); p.campaignId = f.campaignId }
    if (f.type !== undefined) { where.push('type = $type'); p.type = f.type }
    if (f.from !== undefined) { where.push('date >= $from'); p.from = f.from }
    if (f.to !== undefined) { where.push('date < $to'); p.to = f.to }
    if (f.before !== undefined) { where.push('id < $before'); p.before = f.before }
    const sql = `SELECT * FROM conversions ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id DESC LIMIT $limit`
    return this.raw.prepare(sql).all(p) as ConversionRecord[]
  }

  listErrors(f: { reason?: string; before?: number; limit: number }): PostbackErrorRecord[] {
    const where: string[] = []
    const p: Record<string, unknown> = { limit: f.limit }
    if (f.reason !== undefined) { where.push('reason = $reason'); p.reason = f.reason }
    if (f.before !== undefined) { where.push('id < $before'); p.before = f.before }
    const sql = `SELECT * FROM postback_errors ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id DESC LIMIT $limit`
    return this.raw.prepare(sql).all(p) as PostbackErrorRecord[]
  }

  typeBySlug(slug: string): ConversionTypeRecord | null {
    return (this.raw.prepare('SELECT * FROM conversion_types WHERE slug = $slug').get({ slug }) as ConversionTypeRecord | undefined) ?? null
  }

  insertType(t: Omit<ConversionTypeRecord, 'builtin' | 'created_at' | 'updated_at'>, now: number): void {
    this.raw
      .prepare(
        'INSERT INTO conversion_types (slug, name, include_in_conversions, include_in_revenue, send_postback, negative, builtin, created_at, updated_at) ' +
          'VALUES ($slug, $name, $include_in_conversions, $include_in_revenue, $send_postback, $negative, 0, $now, $now)',
      )
      .run({ ...t, now })
  }

  updateType(t: Omit<ConversionTypeRecord, 'builtin' | 'created_at' | 'updated_at'>, now: number): void {
    this.raw
      .prepare(
        'UPDATE conversion_types SET name = $name, include_in_conversions = $include_in_conversions, ' +
          'include_in_revenue = $include_in_revenue, send_postback = $send_postback, negative = $negative, updated_at = $now ' +
          'WHERE slug = $slug',
      )
      .run({ ...t, now })
  }

  deleteType(slug: string): void {
    this.raw.prepare('DELETE FROM conversion_types WHERE slug = $slug').run({ slug })
  }

  countConversionsOfType(slug: string): number {
    return (this.raw.prepare('SELECT count(*) AS n FROM conversions WHERE type = $slug').get({ slug }) as { n: number }).n
  }

  statusesMappedTo(slug: string): string[] {
    return (this.raw.prepare('SELECT status FROM status_map WHERE type_slug = $slug ORDER BY status').all({ slug }) as Array<{ status: string }>)
      .map((r) => r.status)
  }

  replaceStatusMap(entries: Array<[string, string]>): void {
    this.raw.transaction(() => {
      this.raw.exec('DELETE FROM status_map')
      const ins = this.raw.prepare('INSERT INTO status_map (status, type_slug) VALUES ($status, $slug)')
      for (const [status, slug] of entries) ins.run({ status, slug })
    })()
  }
}
