// What a rotation editor shows from the editor's numbers (editor-data.ts): under each entry its report numbers,
// its share of clicks against its share of weight, its P(best) and interval (the winner marked), the caps that
// act on it; under the rotation the split test's verdict and the auto-weights state with the last change.
import { h } from '../../dom'
import type { CapStatus, EditorNumbers, Kind, SplitTest } from './editor-data'
import { numbersCell, percent, shareItem, epcText, type Col } from './numbers'

const COLS: Record<Kind, Col[]> = { offers: ['clicks', 'conversions', 'cr', 'epc'], landings: ['clicks', 'landing_ctr', 'conversions', 'cr', 'epc'] }
const STATE = { ok: 'OK', warning: 'soft cap', reached: 'reached' } as const

/** "3 / 10 clicks today · soft cap" (the state in words, its colour a second cue). */
export function capLine(c: CapStatus): HTMLElement {
  return h('span', { class: 'n-capline', 'data-cap-key': c.key, 'data-state': c.state },
    c.campaign_id === null ? 'Offer cap ' : 'Entry cap ',
    `${c.count} / ${c.limit} ${c.metric} ${c.period === 'day' ? `today (${c.time_zone})` : 'in total'} · `,
    h('span', { class: `cap-${c.state}` }, STATE[c.state], c.state === 'reached' ? ` → ${c.on_reached}` : ''))
}

function splitOf(n: EditorNumbers, pathId: number | null, kind: Kind): SplitTest | null {
  const t = n.data?.splitTest(pathId, kind)
  return t && typeof t === 'object' ? t : null
}

/** The top entry of a split test whose verdict is a winner. */
const winnerOf = (t: SplitTest) => (t.verdict === 'winner' ? [...t.entries].sort((a, b) => (b.p_best ?? 0) - (a.p_best ?? 0))[0]?.id ?? null : null)

export function entryNumbers(n: EditorNumbers, pathId: number | null, kind: Kind, id: number, idsNow: number[], weightShare: number | null,
  capStatus: HTMLElement | null): HTMLElement | string {
  const d = n.data
  if (!d) return n.error ? '' : 'Loading numbers…'
  const rows = d.entries(pathId, kind)
  const row = rows.get(id) ?? null
  const clicks = [...new Set(idsNow)].reduce((s, x) => s + (rows.get(x)?.clicks ?? 0), 0)
  const t = splitOf(n, pathId, kind)
  const e = t?.entries.find((x) => x.id === id)
  const won = t && e && winnerOf(t) === id
  const ci = e ? (t!.metric === 'epc' ? e.epc_ci95 : e.cr_ci95) : null
  const caps = d.caps(pathId, kind === 'offers' ? id : -1)
  const own = caps.find((c) => c.campaign_id !== null)
  if (capStatus) capStatus.replaceChildren(own ? capLine(own) : 'none here')
  return h('div', { class: 'n-entry-in' },
    numbersCell(row, COLS[kind], d.currency, shareItem(row && clicks ? row.clicks / clicks : row ? 0 : null, weightShare)),
    e ? h('span', { class: 'n-split', 'data-p-best': e.p_best ?? '' },
      won ? h('strong', { class: 'n-winner', 'data-winner': '' }, '★ Winner ') : null,
      `P(best) ${e.p_best === null ? '—' : e.p_best.toFixed(3)}`,
      ci ? ` · ${t!.metric === 'epc' ? 'EPC' : 'CR'} 95 % ${t!.metric === 'epc' ? `${epcText(ci.low, t!.currency)} – ${epcText(ci.high, t!.currency)}` : `${percent(ci.low)} – ${percent(ci.high)}`}` : '') : null,
    caps.filter((c) => c.campaign_id === null).map(capLine))
}

const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`

export function rotationFooter(n: EditorNumbers, pathId: number | null, kind: Kind, entries: number): HTMLElement | string {
  const d = n.data
  if (!d) return n.error ? h('p', { class: 'form-error' }, `Numbers: ${n.error}`) : ''
  const t = d.splitTest(pathId, kind)
  const config = d.config(pathId, kind)
  const change = d.lastChange(pathId, kind)
  return h('div', {},
    typeof t === 'string'
      ? h('p', { class: 'n-verdict' }, `Split test: ${t}`)
      : t ? h('p', { class: 'n-verdict', 'data-verdict': t.verdict },
        `Split test (${t.metric === 'epc' ? 'EPC' : 'CR'}, this period, bot clicks left out): `, h('strong', {}, t.verdict.replace(/_/g, ' ')), `: ${t.reason}`)
        : entries >= 2 ? h('p', { class: 'n-verdict muted' }, 'Split test: save the campaign to test these entries.') : null,
    entries < 2 && !config?.enabled && !change ? null : h('p', { class: 'n-autoweights', 'data-auto-weights': config?.enabled ? 'on' : 'off' },
      config?.enabled
        ? `Auto-weights on (${config.metric === 'epc' ? 'EPC' : 'CR'}, floor ${config.floor_pct} %, ${config.min_clicks} clicks per entry first): the "auto" weights route traffic; saving here resets them until its next run.`
        : 'Auto-weights off: the weights here route traffic.',
      change ? h('span', { 'data-last-change': '' }, ` Last change ${when(change.at)} by ${change.actor}: ${change.reason}.`) : null))
}
