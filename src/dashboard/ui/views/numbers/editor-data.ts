// Everything the campaign editor shows beside its weights (issue 30, item 5), loaded once per period: the
// report rows of each rotation (default and per path, offers and landings) and of each path, the split test
// of each rotation with two entries or more, the caps with their counts, and the auto-weights settings with
// the last weight change. Rotation and path editors subscribe and redraw their numbers when it arrives.
import { api } from '../../api'
import { periodQuery, type Period } from '../../period'
import type { Report, ReportRow } from './numbers'

export type Kind = 'offers' | 'landings'
export interface SplitEntry {
  id: number; name: string | null; weight: number; auto_weight: number | null; clicks: number; conversions: number
  cr: number | null; cr_ci95: { low: number; high: number }; epc: number | null; epc_ci95: { low: number; high: number } | null; p_best: number | null
}
export interface SplitTest { metric: 'cr' | 'epc'; verdict: string; reason: string; currency: string | null; entries: SplitEntry[] }
export interface CapStatus {
  key: string; offer_id: number; campaign_id: number | null; path_id: number | null; metric: string; limit: number
  period: string; time_zone: string; count: number; percent: number; state: 'ok' | 'warning' | 'reached'; on_reached: string; resets_at: string | null
}
export interface AutoConfig { path_id: number | null; kind: Kind; enabled: boolean; metric: 'cr' | 'epc'; floor_pct: number; min_clicks: number }
export interface WeightChange { at: string; path_id: number | null; kind: string; actor: string; before: Record<string, number>; after: Record<string, number>; reason: string }

/** A rotation of the saved campaign: its path (null: the default rotation) and kind. */
export interface RotationKey { pathId: number | null; kind: Kind }
const keyOf = (pathId: number | null, kind: string) => `${pathId ?? 0}-${kind}`

export interface EditorData {
  period: Period
  /** The report's one currency, or null with several (rows then carry `money`). */
  currency: string | null
  entries(pathId: number | null, kind: Kind): Map<number, ReportRow>
  path(pathId: number | null): ReportRow | null
  splitTest(pathId: number | null, kind: Kind): SplitTest | string | null
  caps(pathId: number | null, offerId: number): CapStatus[]
  config(pathId: number | null, kind: Kind): AutoConfig | null
  lastChange(pathId: number | null, kind: Kind): WeightChange | null
}

const report = (q: Record<string, string>) => api<Report>('GET', `/reports?${new URLSearchParams({ limit: '1000', ...q })}`)
const byKey = (rows: readonly ReportRow[] | undefined) => new Map((rows ?? []).filter((r) => typeof r.key === 'number').map((r) => [r.key as number, r]))

async function load(campaignId: number, period: Period, rotations: RotationKey[]): Promise<EditorData> {
  const base = { campaign_id: String(campaignId), ...periodQuery(period) }
  const [paths, caps, configs, changes] = await Promise.all([
    report({ ...base, group_by: 'path' }),
    api<{ caps: CapStatus[] }>('GET', '/caps').then((r) => r.caps).catch(() => [] as CapStatus[]),
    api<{ items: AutoConfig[] }>('GET', `/campaigns/${campaignId}/auto-weights`).then((r) => r.items).catch(() => [] as AutoConfig[]),
    api<{ items: WeightChange[] }>('GET', `/campaigns/${campaignId}/weight-changes?limit=100`).then((r) => r.items).catch(() => [] as WeightChange[]),
  ])
  const pathRows = new Map(paths.rows.map((r) => [typeof r.key === 'number' ? r.key : 0, r]))
  // Clicks taken by a path: the rollups by offer mix them into the default rotation's, so entries per path
  // come from a raw scan (path × offer); a campaign whose clicks all went to the default rotation reads the
  // rollups.
  const onlyDefault = [...pathRows.keys()].every((k) => k === 0)
  const entries = new Map<string, Map<number, ReportRow>>()
  await Promise.all((['offers', 'landings'] as const).map(async (kind) => {
    const dim = kind === 'offers' ? 'offer' : 'landing'
    if (onlyDefault) {
      entries.set(keyOf(null, kind), byKey((await report({ ...base, group_by: dim })).rows))
    } else {
      for (const p of (await report({ ...base, group_by: `path,${dim}` })).rows) entries.set(keyOf(typeof p.key === 'number' ? p.key : null, kind), byKey(p.children))
    }
  }))
  // The split test over the same instants as the report (its response says which ones it covered).
  const tests = new Map<string, SplitTest | string>()
  await Promise.all(rotations.map(async (r) => {
    const metric = configs.find((c) => c.path_id === r.pathId && c.kind === r.kind)?.metric ?? 'cr'
    const q = new URLSearchParams({ kind: r.kind, from: paths.from, to: paths.to, metric, ...(r.pathId === null ? {} : { path_id: String(r.pathId) }) })
    try {
      tests.set(keyOf(r.pathId, r.kind), await api<SplitTest>('GET', `/campaigns/${campaignId}/split-test?${q}`))
    } catch (err) {
      tests.set(keyOf(r.pathId, r.kind), err instanceof Error ? err.message : String(err))
    }
  }))
  return {
    // Every report of one period and campaign holds money in the same currencies (its revenue and the cost).
    period, currency: paths.currency,
    entries: (pathId, kind) => entries.get(keyOf(pathId, kind)) ?? new Map(),
    path: (pathId) => pathRows.get(pathId ?? 0) ?? null,
    splitTest: (pathId, kind) => tests.get(keyOf(pathId, kind)) ?? null,
    caps: (pathId, offerId) => caps.filter((c) => c.offer_id === offerId &&
      (c.campaign_id === null || (c.campaign_id === campaignId && (c.path_id ?? 0) === (pathId ?? 0)))),
    config: (pathId, kind) => configs.find((c) => c.path_id === pathId && c.kind === kind) ?? null,
    lastChange: (pathId, kind) => changes.find((c) => c.path_id === pathId && c.kind === kind) ?? null,
  }
}

/** The editor's numbers: loaded per period, handed to every subscriber (now, if already loaded). */
export class EditorNumbers {
  data: EditorData | null = null
  error: string | null = null
  private readonly listeners = new Set<() => void>()
  private seq = 0
  constructor(readonly campaignId: number, readonly rotations: RotationKey[]) {}

  on(fn: () => void): void {
    this.listeners.add(fn)
    if (this.data || this.error) fn()
  }

  async load(period: Period): Promise<void> {
    const mine = ++this.seq
    try {
      const data = await load(this.campaignId, period, this.rotations)
      if (mine !== this.seq) return
      this.data = data
      this.error = null
    } catch (err) {
      if (mine !== this.seq) return
      this.error = err instanceof Error ? err.message : String(err)
    }
    for (const fn of this.listeners) fn()
  }
}
