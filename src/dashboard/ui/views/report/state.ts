// The report screen's state (issue 30), all of it in the URL: `#/reports?group_by=sub3,country&period=7d&sort=profit…`,
// so a report is bookmarked, shared and reopened as it was. Parsed leniently (a hand-edited URL falls back to
// defaults, the API names what it still refuses) and written back with writeParams (no re-render).
import { periodFromParams, periodToParams, type Period } from '../../period'

export const DIMENSIONS = [
  'campaign', 'source', 'offer', 'landing', 'day', 'hour', 'currency', 'device', 'os', 'browser', 'referrer',
  'sub1', 'sub2', 'sub3', 'sub4', 'sub5', 'sub6', 'sub7', 'sub8', 'sub9', 'sub10',
  'country', 'region', 'city', 'asn', 'connection', 'language', 'os_version', 'browser_version', 'path',
] as const
export type Dim = (typeof DIMENSIONS)[number]

/** Readable names of the groupings ("Sub 3", "OS version"), never the API's field names. */
export function dimLabel(d: string): string {
  const sub = /^sub(\d+)$/.exec(d)
  if (sub) return `Sub ${sub[1]}`
  const special: Record<string, string> = { os: 'OS', asn: 'ASN', os_version: 'OS version', browser_version: 'Browser version', landing: 'Landing' }
  return special[d] ?? d.charAt(0).toUpperCase() + d.slice(1)
}
export const isSubDim = (d: string) => /^sub([1-9]|10)$/.test(d)

/** Metric columns with their readable headers (units in the header, so cells stay numbers). */
export const METRICS = [
  { id: 'clicks', label: 'Clicks', kind: 'count' },
  { id: 'unique_clicks', label: 'Unique', kind: 'count' },
  { id: 'bot_clicks', label: 'Bots', kind: 'count' },
  { id: 'conversions', label: 'Conv.', kind: 'count' },
  { id: 'cr', label: 'CR %', kind: 'ratio' },
  { id: 'epc', label: 'EPC', kind: 'money' },
  { id: 'revenue', label: 'Revenue', kind: 'money' },
  { id: 'cost', label: 'Cost', kind: 'money' },
  { id: 'profit', label: 'Profit', kind: 'money' },
  { id: 'roi', label: 'ROI %', kind: 'ratio' },
  { id: 'landing_views', label: 'LP views', kind: 'count' },
  { id: 'landing_clicks', label: 'LP clicks', kind: 'count' },
  { id: 'landing_ctr', label: 'LP CTR %', kind: 'ratio' },
] as const
export type MetricId = (typeof METRICS)[number]['id']
export const metricLabel = (id: string) => METRICS.find((m) => m.id === id)?.label ?? id
const DEFAULT_COLUMNS: MetricId[] = ['clicks', 'unique_clicks', 'conversions', 'cr', 'epc', 'revenue', 'cost', 'profit', 'roi']

/** The catalog filters (the only filters the reports API takes), shown by name. */
export const FILTERS = [
  { param: 'campaign_id', dim: 'campaign', label: 'Campaign', path: '/campaigns', section: 'campaigns' },
  { param: 'source_id', dim: 'source', label: 'Source', path: '/sources', section: 'campaigns' },
  { param: 'offer_id', dim: 'offer', label: 'Offer', path: '/offers', section: 'campaigns' },
  { param: 'landing_id', dim: 'landing', label: 'Landing', path: '/landings', section: 'landings' },
] as const
export type FilterParam = (typeof FILTERS)[number]['param']

export const PAGE_SIZES = [50, 100, 500] as const
export const HAVING_OPS = ['<', '<=', '>', '>=', '='] as const
export interface Condition { metric: string; op: string; value: string }

export interface ReportState {
  levels: Dim[]
  period: Period
  /** Set only when the reader overrides the instance's zone. */
  tzOverride: string | null
  filters: Partial<Record<FilterParam, string>>
  sort: string | null
  order: 'asc' | 'desc' | null
  page: number
  size: number
  minClicks: number | null
  having: Condition[]
  columns: MetricId[]
}

const isDim = (s: string): s is Dim => (DIMENSIONS as readonly string[]).includes(s)

/** `profit<0,clicks>=100` → conditions; pieces that do not read as one are dropped. */
export function parseHaving(raw: string | null): Condition[] {
  if (!raw) return []
  const out: Condition[] = []
  for (const part of raw.split(',')) {
    const m = /^\s*([a-z_]+(?:\.[A-Za-z]{3})?)\s*(<=|>=|<|>|=)\s*(-?\d+(?:\.\d+)?)\s*$/.exec(part)
    if (m) out.push({ metric: m[1]!, op: m[2]!, value: m[3]! })
  }
  return out
}
export const havingText = (c: Condition[]) => c.filter((x) => x.value.trim() !== '').map((x) => `${x.metric}${x.op}${x.value.trim()}`).join(',')

export function stateFromParams(params: URLSearchParams, instanceTz: string): ReportState {
  const levels = (params.get('group_by') ?? 'campaign').split(',').map((s) => s.trim()).filter(isDim)
  const unique = [...new Set(levels)].slice(0, 3)
  const tzOverride = params.get('tz') || null
  const filters: ReportState['filters'] = {}
  for (const f of FILTERS) {
    const v = params.get(f.param)
    if (v && /^\d+$/.test(v)) filters[f.param] = v
  }
  const size = Number(params.get('size'))
  const page = Number(params.get('page'))
  const min = params.get('min_clicks')
  const order = params.get('order')
  const cols = (params.get('cols') ?? '').split(',').filter((c): c is MetricId => METRICS.some((m) => m.id === c))
  return {
    levels: unique.length ? unique : ['campaign'],
    period: periodFromParams(params, tzOverride ?? instanceTz, '7d'),
    tzOverride,
    filters,
    sort: params.get('sort') || null,
    order: order === 'asc' || order === 'desc' ? order : null,
    page: Number.isInteger(page) && page > 0 ? page : 1,
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : 100,
    minClicks: min && /^\d+$/.test(min) ? Number(min) : null,
    having: parseHaving(params.get('having')),
    columns: cols.length ? cols : [...DEFAULT_COLUMNS],
  }
}

export function stateToParams(s: ReportState): URLSearchParams {
  const p = new URLSearchParams()
  p.set('group_by', s.levels.join(','))
  periodToParams(s.period, p)
  if (s.tzOverride) p.set('tz', s.tzOverride)
  for (const f of FILTERS) if (s.filters[f.param]) p.set(f.param, s.filters[f.param]!)
  if (s.sort) p.set('sort', s.sort)
  if (s.order) p.set('order', s.order)
  if (s.page > 1) p.set('page', String(s.page))
  if (s.size !== 100) p.set('size', String(s.size))
  if (s.minClicks !== null) p.set('min_clicks', String(s.minClicks))
  const having = havingText(s.having)
  if (having) p.set('having', having)
  if (s.columns.join(',') !== DEFAULT_COLUMNS.join(',')) p.set('cols', s.columns.join(','))
  return p
}

/** The reports API query of a state: the top level paged, the metric filters applied before paging. */
export function apiQuery(s: ReportState, over: { group_by?: string; limit?: number; offset?: number; metricFilters?: boolean } = {}): URLSearchParams {
  const q = new URLSearchParams({ group_by: over.group_by ?? s.levels.join(','), from: s.period.from, to: s.period.to, tz: s.period.tz })
  for (const f of FILTERS) if (s.filters[f.param]) q.set(f.param, s.filters[f.param]!)
  if (s.sort) q.set('sort', s.sort)
  if (s.order) q.set('order', s.order)
  q.set('limit', String(over.limit ?? s.size))
  q.set('offset', String(over.offset ?? (s.page - 1) * s.size))
  if (over.metricFilters !== false) {
    if (s.minClicks !== null) q.set('min_clicks', String(s.minClicks))
    const having = havingText(s.having)
    if (having) q.set('having', having)
  }
  return q
}
