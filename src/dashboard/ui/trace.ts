// How a visitor was routed, as the simulator and the click lookup show it (issue 28): each path tried in
// order with each condition's outcome (✓/✗ and the word, never colour alone) and the server's sentence,
// and the visitor fields the rules read, with the DB-IP link its licence asks for wherever as_org is shown.
import { h } from './dom'

export interface Explanation { index: number; type: string; negate: boolean; outcome: boolean; detail: string; conditions?: Explanation[] }
export interface TracedPath { path_id: number; name: string; matched: boolean; conditions: Explanation[] }

/**
 * DB-IP's CC BY 4.0 licence: "a link back to DB-IP.com on pages that display or use results from the
 * database" (docs/geoip.md; src/lib/geoip/attribution.ts holds the full attribution text).
 */
export function dbipAttribution(): HTMLElement {
  return h('small', { class: 'attribution', 'data-attribution': 'db-ip' },
    'IP data: ', h('a', { href: 'https://db-ip.com', target: '_blank', rel: 'noopener noreferrer' }, 'IP Geolocation by DB-IP'))
}

function conditionItem(c: Explanation): HTMLElement {
  return h('li', { 'data-outcome': c.outcome ? 'pass' : 'fail' },
    h('span', { class: 'mark' }, c.outcome ? '✓ holds' : '✗ fails'), ' ',
    h('code', {}, `${c.negate ? 'NOT ' : ''}${c.type}`), ': ', c.detail,
    c.conditions?.length ? h('ul', { class: 'trace-conditions' }, c.conditions.map(conditionItem)) : null)
}

/** The trace: one entry per path tried, the one that took the visitor marked. */
export function traceList(paths: readonly TracedPath[]): HTMLElement {
  if (paths.length === 0) return h('p', {}, 'No path was tried.')
  return h('ol', { class: 'trace' }, paths.map((p) => h('li', { 'data-trace-path': p.path_id, 'data-matched': String(p.matched) },
    h('strong', {}, p.name), ' ', h('span', { class: 'mark' }, p.matched ? '✓ matched' : '✗ not matched'),
    p.conditions.length
      ? h('ul', { class: 'trace-conditions' }, p.conditions.map(conditionItem))
      : h('p', {}, 'No conditions: every visitor who reaches it.'))))
}

const VISITOR_FIELDS = ['ip', 'country', 'region', 'city', 'asn', 'as_org', 'connection', 'device_type', 'os', 'os_version',
  'browser', 'browser_version', 'language', 'referrer_domain', 'unique', 'bot'] as const

/** Name/value pairs ("—" for none), with the DB-IP link when a network field is among them. */
export function pairs(record: Record<string, unknown>, keys: readonly string[]): HTMLElement {
  const shown = keys.filter((k) => record[k] !== undefined)
  return h('div', {},
    h('dl', { class: 'pairs' }, shown.flatMap((k) => [h('dt', {}, k), h('dd', {}, record[k] === null || record[k] === '' ? '—' : String(record[k]))])),
    shown.includes('as_org') || shown.includes('asn') ? dbipAttribution() : null)
}

export const visitorPanel = (visitor: Record<string, unknown>) => pairs(visitor, VISITOR_FIELDS)
