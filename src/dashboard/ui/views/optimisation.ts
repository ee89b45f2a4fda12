// Split tests and auto-weights of a saved campaign (issue 29, docs/optimisation.md): for the default rotation and
// each path's own, offers and landings, each entry's weight beside its clicks, CR, EPC and P(best), the verdict
// and why; the auto-weights switch with its settings; the last weight changes. Built with h() only (CSP-safe).
import { api } from '../api'
import { field, h, mount } from '../dom'
import { clearErrors, showErrors } from '../forms'
import type { Named } from './rotation'

interface Entry {
  id: number; name: string | null; weight: number; auto_weight: number | null; clicks: number; conversions: number
  cr: number | null; epc: number | null; p_best: number | null
}
interface SplitTest { verdict: string; reason: string; currency: string | null; epc_note: string | null; entries: Entry[] }
interface Config { path_id: number | null; kind: 'offers' | 'landings'; enabled: boolean; metric: 'cr' | 'epc'; floor_pct: number; min_clicks: number; window_hours: number; refresh_minutes: number }
interface Change { at: string; path_id: number | null; kind: string; actor: string; before: Record<string, number>; after: Record<string, number>; reason: string }

/** A rotation of the campaign: the default one (path null) or a path's, of offers or of landings. */
export interface RotationRef { pathId: number | null; pathName: string | null; kind: 'offers' | 'landings' }

const pct = (x: number | null, digits = 2) => (x === null ? '—' : `${x.toFixed(digits)} %`)
const WINDOWS: Array<[string, string]> = [['24h', 'last 24 h'], ['72h', 'last 3 days'], ['7d', 'last 7 days'], ['30d', 'last 30 days'], ['90d', 'last 90 days']]

function rotationPanel(campaignId: number, r: RotationRef, configs: Config[], onChanged: () => void): HTMLElement {
  const label = `${r.pathName === null ? 'Default rotation' : `Path "${r.pathName}"`}: ${r.kind}`
  const windowSel = h('select', { name: 'window', 'aria-label': `window of ${label}` }, WINDOWS.map(([v, t]) => h('option', { value: v }, t)))
  windowSel.value = '7d'
  const metricSel = h('select', { name: 'metric', 'aria-label': `metric of ${label}` }, h('option', { value: 'cr' }, 'CR'), h('option', { value: 'epc' }, 'EPC'))
  const table = h('div', { class: 'table-wrap', 'aria-live': 'polite' })
  const load = async () => {
    const q = new URLSearchParams({ kind: r.kind, window: windowSel.value, metric: metricSel.value, ...(r.pathId === null ? {} : { path_id: String(r.pathId) }) })
    try {
      const t = await api<SplitTest>('GET', `/campaigns/${campaignId}/split-test?${q}`)
      const total = t.entries.reduce((s, e) => s + (e.auto_weight ?? e.weight), 0)
      mount(table,
        h('table', { class: 'grid', 'data-split-test': `${r.pathId ?? 0}-${r.kind}` },
          h('thead', {}, h('tr', {}, ['Entry', 'Weight', 'Auto weight', 'Share', 'Clicks', 'Conv.', 'CR', `EPC${t.currency ? ` (${t.currency})` : ''}`, 'P(best)'].map((x) => h('th', {}, x)))),
          h('tbody', {}, t.entries.map((e) => h('tr', {},
            h('td', {}, `${e.name ?? '?'} (#${e.id})`), h('td', {}, e.weight), h('td', {}, e.auto_weight === null ? 'off' : `${(e.auto_weight / 100).toFixed(2)} %`),
            h('td', {}, total ? `${Math.round(((e.auto_weight ?? e.weight) / total) * 100)} %` : '—'),
            h('td', {}, e.clicks), h('td', {}, e.conversions), h('td', {}, pct(e.cr)), h('td', {}, e.epc === null ? '—' : e.epc.toFixed(4)),
            h('td', {}, e.p_best === null ? '—' : e.p_best.toFixed(3)))))),
        h('p', { 'data-verdict': t.verdict }, h('strong', {}, t.verdict.replace(/_/g, ' ')), ': ', t.reason),
        t.epc_note ? h('p', { class: 'muted' }, t.epc_note) : null)
    } catch (err) {
      mount(table, h('p', { class: 'form-error' }, err instanceof Error ? err.message : String(err)))
    }
  }
  windowSel.addEventListener('change', load)
  metricSel.addEventListener('change', load)

  const c = configs.find((x) => x.path_id === r.pathId && x.kind === r.kind)
  const enabled = h('input', { name: 'enabled', type: 'checkbox', checked: c?.enabled ?? false })
  const metric = h('select', { name: 'metric' }, h('option', { value: 'cr' }, 'CR'), h('option', { value: 'epc' }, 'EPC'))
  metric.value = c?.metric ?? 'cr'
  const floor = h('input', { name: 'floor_pct', type: 'number', min: 0, max: 50, step: 'any', value: c?.floor_pct ?? 5 })
  const minClicks = h('input', { name: 'min_clicks', type: 'number', min: 0, step: 1, value: c?.min_clicks ?? 100 })
  const windowHours = h('input', { name: 'window_hours', type: 'number', min: 1, max: 2160, step: 1, value: c?.window_hours ?? 168 })
  const refresh = h('input', { name: 'refresh_minutes', type: 'number', min: 1, max: 10080, step: 1, value: c?.refresh_minutes ?? 60 })
  const saved = h('span', { 'aria-live': 'polite', class: 'muted' })
  const form = h('form', { class: 'auto-weights', 'aria-label': `auto-weights of ${label}` },
    h('div', { class: 'field' }, h('label', {}, enabled, ' Auto-weights: move traffic toward the better entries (probability matching)')),
    h('div', { class: 'filters' }, field('Metric', metric), field('Floor %', floor, 'each entry keeps at least this share'),
      field('Min clicks', minClicks, 'per entry, before weights move'), field('Window (hours)', windowHours), field('Every (minutes)', refresh)),
    h('p', { class: 'form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'small' }, 'Save auto-weights'), ' ', saved)
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearErrors(form)
    try {
      await api('PUT', `/campaigns/${campaignId}/auto-weights`, {
        path_id: r.pathId, kind: r.kind, enabled: enabled.checked, metric: metric.value, floor_pct: Number(floor.value),
        min_clicks: Number(minClicks.value), window_hours: Number(windowHours.value), refresh_minutes: Number(refresh.value),
      })
      mount(saved, enabled.checked ? 'Saved: the first decision runs now.' : 'Saved: off, the manual weights apply.')
      onChanged()
      // The first decision runs in the job loop right after the save: show its weights once it is through.
      setTimeout(() => { void load(); onChanged() }, 1500)
    } catch (err) {
      showErrors(form, err)
    }
  })
  void load()
  return h('section', { class: 'card', 'data-rotation': `${r.pathId ?? 0}-${r.kind}` },
    h('h4', {}, label), h('div', { class: 'filters' }, field('Window', windowSel), field('Verdict on', metricSel)), table, form)
}

export function optimisation(campaignId: number, rotations: RotationRef[], names: { offers: Named[]; landings: Named[] }): HTMLElement {
  const changes = h('div', { 'aria-live': 'polite' })
  const panels = h('div', {})
  const nameOf = (kind: string, id: string) => (kind === 'offers' ? names.offers : names.landings).find((x) => String(x.id) === id)?.name ?? `#${id}`
  const loadChanges = async () => {
    const list = await api<{ items: Change[] }>('GET', `/campaigns/${campaignId}/weight-changes?limit=5`).catch(() => ({ items: [] as Change[] }))
    mount(changes, list.items.length === 0 ? h('p', { class: 'muted' }, 'No weight changes yet.') : h('ul', { 'data-weight-changes': '' }, list.items.map((c) => h('li', {},
      `${c.at.slice(0, 16).replace('T', ' ')} UTC, ${c.kind}${c.path_id === null ? '' : ` of path #${c.path_id}`}, by ${c.actor}: `,
      Object.keys(c.after).map((id) => `${nameOf(c.kind, id)} ${c.before[id] ?? 0} % → ${c.after[id]} %`).join(', '), ` (${c.reason})`))))
  }
  void (async () => {
    const configs = (await api<{ items: Config[] }>('GET', `/campaigns/${campaignId}/auto-weights`).catch(() => ({ items: [] as Config[] }))).items
    mount(panels, rotations.map((r) => rotationPanel(campaignId, r, configs, loadChanges)))
  })()
  void loadChanges()
  return h('div', { class: 'card optimisation', 'aria-labelledby': `opt-title-${campaignId}` },
    h('h3', { id: `opt-title-${campaignId}` }, 'Split tests and auto-weights'),
    h('p', { class: 'muted' }, 'P(best): the probability that an entry has the best conversion rate (or EPC), from the window\'s clicks and conversions (Bayesian). Bot clicks are left out.'),
    panels, h('h4', {}, 'Last weight changes'), changes)
}

/** The rotations worth a split test: two or more entries, the default one first, then each rotation path's. */
export function rotationsOf(c: {
  offers: unknown[]; landings: unknown[]
  paths?: Array<{ id: number; name: string; action: { type: string; offers?: unknown[]; landings?: unknown[] } }>
}): RotationRef[] {
  const out: RotationRef[] = []
  if (c.offers.length >= 2) out.push({ pathId: null, pathName: null, kind: 'offers' })
  if (c.landings.length >= 2) out.push({ pathId: null, pathName: null, kind: 'landings' })
  for (const p of c.paths ?? []) {
    if (p.action.type !== 'rotation') continue
    if ((p.action.offers?.length ?? 0) >= 2) out.push({ pathId: p.id, pathName: p.name, kind: 'offers' })
    if ((p.action.landings?.length ?? 0) >= 2) out.push({ pathId: p.id, pathName: p.name, kind: 'landings' })
  }
  return out
}
