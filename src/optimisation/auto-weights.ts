// Auto-weights (opt-in per rotation): probability matching. A job per enabled rotation reads the split test of
// its window, sets each entry's auto_weight ∝ P(best) with a floor, records the change, and enqueues its next
// run, all in one transaction; the job loop claims each job once (Postgres: FOR UPDATE SKIP LOCKED with a lease),
// so one instance decides. `version` (bumped by every PUT) ends a chain that a newer configuration replaced.
import type { JobQueue } from '../context'
import type { EventBus } from '../lib/event-bus'
import { log } from '../lib/log'
import type { Steps } from '../lib/steps'
import { changeReason, splitTest } from './analysis'
import { DEFAULT_RULES, matchedWeights } from './stats'
import type { ConfigRow, ConfigValues, Entry, OptimisationStore, RotationRef, RotationTx } from './store'

export const AUTO_WEIGHTS_JOB = 'auto_weights'

export interface AutoWeightsPayload { campaign_id: number; path_id: number | null; kind: 'offers' | 'landings'; version: number }

export const refOf = (r: RotationRef) => `auto-weights:${r.campaignId}:${r.pathId ?? 0}:${r.kind}`

export interface AutoWeightDeps {
  store: OptimisationStore
  jobs: JobQueue
  events: EventBus
  costCurrency: () => string
}

/** Effective weights in % of the rotation, by entry id: what routing does now (auto ?? manual). */
export function shares(entries: readonly Entry[], weightOf: (e: Entry) => number): Record<string, number> {
  const total = entries.reduce((s, e) => s + Math.max(0, weightOf(e)), 0)
  const out: Record<string, number> = {}
  for (const e of entries) out[String(e.id)] = total > 0 ? Math.round((Math.max(0, weightOf(e)) / total) * 10_000) / 100 : 0
  return out
}
const effective = (e: Entry) => e.autoWeight ?? e.weight

function* enqueueNext(jobs: JobQueue, t: RotationTx, version: number, runAt: number): Steps<void> {
  const r = t.ref
  const payload: AutoWeightsPayload = { campaign_id: r.campaignId, path_id: r.pathId, kind: r.kind, version }
  yield jobs.enqueue(AUTO_WEIGHTS_JOB, payload, { tx: t.tx ?? undefined, runAt, ref: refOf(r) })
}

/**
 * Saves a configuration (the PUT). Enabling schedules the first run now (the chain of an older version is
 * cancelled); disabling clears the auto weights, so the manual ones apply again, and records that change.
 */
export async function saveConfig(d: AutoWeightDeps, r: RotationRef, values: ConfigValues): Promise<ConfigRow> {
  const now = Date.now()
  const cleared = await d.store.inRotation(r, function* (t): Steps<boolean> {
    const version: number = yield t.saveConfig(values, now)
    yield d.jobs.cancelRef(refOf(r), { tx: t.tx ?? undefined })
    if (values.enabled) {
      yield* enqueueNext(d.jobs, t, version, now)
      return false
    }
    if (!t.entries.some((e) => e.autoWeight !== null)) return false
    for (const e of t.entries) if (e.autoWeight !== null) yield t.setAutoWeight(e.id, null)
    yield t.recordChange({
      at: now, actor: values.updatedBy, before: JSON.stringify(shares(t.entries, effective)),
      after: JSON.stringify(shares(t.entries, (e) => e.weight)), reason: 'auto-weights switched off: the manual weights apply again',
    })
    return true
  })
  d.jobs.kick()
  if (cleared) d.events.committed('catalog.changed', { entity: 'campaign', id: r.campaignId, action: 'updated' })
  return (await d.store.config(r))!
}

/** The job: one decision for one rotation, then the next run. Its result text is what /admin/api/jobs shows. */
export function autoWeightsJob(d: AutoWeightDeps) {
  return async (raw: unknown): Promise<string> => {
    const p = raw as AutoWeightsPayload
    const r: RotationRef = { campaignId: p.campaign_id, pathId: p.path_id, kind: p.kind }
    const config = await d.store.config(r)
    if (!config || !config.enabled || config.version !== p.version) return 'superseded: auto-weights were switched off or re-configured'
    // A path deleted (or turned into a URL) since: the chain ends here (its settings stay, shown by GET).
    if (r.pathId !== null && (await d.store.pathAction(r.campaignId, r.pathId)) !== 'rotation') return 'stopped: the path is gone or no longer a rotation'
    const now = Date.now()
    // Read outside the transaction (a bounded scan); the transaction below re-checks that nothing changed.
    let outcome: { weights: Map<number, number> | null; note: string; reason: string | null }
    try {
      const { result } = await splitTest(d.store, r, { from: now - config.windowHours * 3_600_000, to: now }, {
        metric: config.metric, currency: null, costCurrency: d.costCurrency(),
        rules: { ...DEFAULT_RULES, min_clicks: config.minClicks, min_conversions: 0 },
      })
      const live = result.entries.filter((e) => e.weight > 0)
      const short = live.filter((e) => e.clicks < config.minClicks)
      if (live.length < 2) outcome = { weights: null, note: 'no change: fewer than two entries with a weight above 0', reason: null }
      else if (short.length > 0) {
        outcome = {
          weights: null, reason: null,
          note: `no change: minimum sample not reached (${short.map((e) => `${e.id}: ${e.clicks} clicks`).join(', ')}; each entry needs ${config.minClicks} in ${config.windowHours} h)`,
        }
      } else {
        // P(best) among the live entries only: a paused entry takes no traffic and no weight.
        const total = live.reduce((s, e) => s + (e.p_best ?? 0), 0)
        const floor = Math.min(config.floorPct, 100 / live.length)
        const w = matchedWeights(live.map((e) => (total > 0 ? (e.p_best ?? 0) / total : 1 / live.length)), floor)
        outcome = { weights: new Map(live.map((e, i) => [e.id, w[i]!])), note: '', reason: changeReason({ ...result, entries: live }) }
      }
    } catch (err) {
      // EPC over several currencies: refused (never summed); the chain goes on, the operator sees why.
      if ((err as { code?: string }).code !== 'conflict') throw err
      outcome = { weights: null, note: `no change: ${(err as Error).message}`, reason: null }
    }
    const applied = await d.store.inRotation(r, function* (t): Steps<string> {
      if (!t.config || !t.config.enabled || t.config.version !== p.version) return 'superseded: auto-weights were switched off or re-configured'
      yield* enqueueNext(d.jobs, t, p.version, now + t.config.refreshMinutes * 60_000)
      if (!outcome.weights) return outcome.note
      const want = outcome.weights
      // The rotation changed since the read (a PATCH): decide again on the next run.
      if (t.entries.filter((e) => e.weight > 0).some((e) => !want.has(e.id))) return 'no change: the rotation changed while deciding'
      const next = t.entries.map((e) => ({ ...e, autoWeight: want.get(e.id) ?? null }))
      if (next.every((e, i) => e.autoWeight === t.entries[i]!.autoWeight)) return `no change: the weights are already ${outcome.reason}`
      for (const e of next) yield t.setAutoWeight(e.id, e.autoWeight)
      const after = shares(next, effective)
      yield t.recordChange({ at: now, actor: 'auto', before: JSON.stringify(shares(t.entries, effective)), after: JSON.stringify(after), reason: outcome.reason! })
      return `weights ${JSON.stringify(after)}: ${outcome.reason}`
    })
    if (applied.startsWith('weights ')) {
      d.events.committed('catalog.changed', { entity: 'campaign', id: r.campaignId, action: 'updated' })
      log.info('optimisation: auto-weights applied', { campaign_id: r.campaignId, path_id: r.pathId, kind: r.kind })
    }
    return applied
  }
}
