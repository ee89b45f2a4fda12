// The condition editor (issue 28, docs/rules.md), shared by a campaign's paths and the rule sets: rows of
// conditions, each a type, IS / IS NOT and the inputs that type takes. The server checks every value (its
// 400 names the field: "…conditions.2.values.0: …", shown on that row); the editor only shapes the JSON.
// Only the types are imported from src/rules: the bundle stays free of the server's schemas.
import type { Condition, LeafCondition } from '../../rules'
import { h } from './dom'

type LeafType = LeafCondition['type']
type AnyCondition = Record<string, any> & { type: string; negate?: boolean }

/** The leaf types in the order the picker shows them, with their labels. */
const LEAF_LABELS: Array<[LeafType, string]> = [
  ['country', 'Country'], ['region', 'Region'], ['city', 'City'], ['asn', 'ASN'], ['as_org', 'Network name (AS org)'],
  ['connection', 'Connection type'], ['device', 'Device type'], ['os', 'Operating system'], ['browser', 'Browser'],
  ['language', 'Language'], ['referrer_domain', 'Referrer domain'], ['ip', 'IP address / range'], ['param', 'Query parameter'],
  ['time', 'Time of day / weekday'], ['unique', 'Unique visitor'], ['bot', 'Bot (traffic quality)'],
]
const LABEL = new Map<string, string>([...LEAF_LABELS, ['group', 'Group (all of)']])
const CHOICES: Partial<Record<LeafType, readonly string[]>> = {
  connection: ['hosting', 'residential', 'unknown'],
  device: ['desktop', 'mobile', 'tablet', 'bot', 'unknown'],
}
const HINTS: Partial<Record<LeafType, string>> = {
  country: 'ISO codes, comma or line separated: US, DE',
  region: 'names (city database only)', city: 'names (city database only)',
  asn: 'AS numbers: 15169, 16509', as_org: 'parts of the network name: amazon, ovh',
  os: 'iOS, Android, Windows, macOS…', browser: 'Chrome, Safari, Facebook…', language: 'primary tags: en, de',
  referrer_domain: 'facebook.com, *.google.com (with subdomains)', ip: 'addresses or CIDR ranges: 1.2.3.0/24, 2001:db8::/32',
}
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const
const PARAM_OPS = ['equals', 'in', 'prefix', 'regex', 'empty', 'missing'] as const

/** "US, DE\nFR" → ['US', 'DE', 'FR']. */
const splitList = (text: string) => text.split(/[\n,]/).map((v) => v.trim()).filter((v) => v !== '')
/** A whole number as a number; anything else as typed, for the server to name. */
const numeric = (v: string) => (/^\d+$/.test(v) ? Number(v) : v)

/** One condition in words, for lists ("country is not US, DE"). */
export function describeCondition(c: AnyCondition): string {
  const is = c.negate ? 'is not' : 'is'
  const list = (v: unknown) => (Array.isArray(v) ? v.join(', ') : String(v ?? ''))
  switch (c.type) {
    case 'group': return `${c.negate ? 'NOT ' : ''}(${(c.all as AnyCondition[] ?? []).map(describeCondition).join(' AND ')})`
    case 'unique': return c.negate ? 'repeat visitor' : 'unique visitor'
    case 'bot': return c.negate ? 'not a bot' : 'bot'
    case 'param': return `${c.negate ? 'NOT ' : ''}param ${c.name} ${c.op}${c.ignore_case ? ' (any case)' : ''} ${c.value ?? list(c.values)}`.trim()
    case 'time': return `${c.negate ? 'NOT ' : ''}time ${c.from ?? ''}${c.to ? `–${c.to}` : ''} ${list(c.days)} (${c.tz})`.replace(/\s+/g, ' ')
    default: return `${c.type} ${is} ${list(c.values)}${c.version ? ` (version ${c.version.op} ${c.version.value})` : ''}`
  }
}

export interface ConditionsEditor {
  element: HTMLElement
  value(): Condition[]
  /** Puts a server message on the condition it names (`rest` is the field after "conditions.", e.g. "2.values.0"). */
  showError(rest: string, message: string): boolean
  clearErrors(): void
}

interface Row { element: HTMLElement; value(): AnyCondition; error: HTMLElement; nested: ConditionsEditor | null }

let rowCount = 0

/** The editor of a list of conditions; `leafOnly` for a group's own conditions (groups do not nest). */
export function conditionsEditor(initial: readonly AnyCondition[], label: string, leafOnly = false): ConditionsEditor {
  const list = h('ol', { class: 'conditions' })
  const rows: Row[] = []
  const renumber = () => rows.forEach((r, i) => r.element.setAttribute('data-condition', String(i)))
  const add = (c: AnyCondition) => {
    const row = conditionRow(c, leafOnly, () => {
      rows.splice(rows.indexOf(row), 1)
      row.element.remove()
      renumber()
    })
    rows.push(row)
    list.append(row.element)
    renumber()
    return row
  }
  for (const c of initial) add(c)
  const picker = h('select', { 'aria-label': `type of the new condition (${label})` },
    LEAF_LABELS.map(([v, l]) => h('option', { value: v }, l)), leafOnly ? null : h('option', { value: 'group' }, LABEL.get('group')!))
  const addButton = h('button', { type: 'button', class: 'small', onclick: () => {
    const row = add(blank(picker.value))
    row.element.querySelector<HTMLElement>('textarea, input:not([type=checkbox]), select.negate')?.focus()
  } }, 'Add condition')
  const element = h('div', { class: 'conditions-editor' },
    list,
    h('div', { class: 'add-condition' }, picker, addButton),
  )
  return {
    element,
    value: () => rows.map((r) => r.value()) as Condition[],
    showError(rest, message) {
      const m = /^(\d+)(?:\.(.*))?$/.exec(rest)
      const row = m ? rows[Number(m[1])] : undefined
      if (!row) return false
      // A group's own condition ("1.all.0.values.0"): on the inner row when it exists.
      const inner = m![2] ? /^all\.(.+)$/.exec(m![2]) : null
      if (inner && row.nested?.showError(inner[1]!, message)) return true
      row.error.textContent = message
      row.element.setAttribute('aria-invalid', 'true')
      return true
    },
    clearErrors() {
      for (const r of rows) {
        r.error.textContent = ''
        r.element.removeAttribute('aria-invalid')
        r.nested?.clearErrors()
      }
    },
  }
}

function blank(type: string): AnyCondition {
  switch (type) {
    case 'param': return { type, name: 'sub1', op: 'equals', value: '' }
    case 'time': return { type, tz: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC', from: '09:00', to: '18:00' }
    case 'group': return { type, negate: true, all: [] }
    case 'unique': case 'bot': return { type }
    default: return { type, values: [] }
  }
}

/** One condition: its type (fixed once added), IS / IS NOT, the type's inputs, Remove, and its error slot. */
function conditionRow(c: AnyCondition, leafOnly: boolean, remove: () => void): Row {
  const n = ++rowCount
  const label = LABEL.get(c.type) ?? c.type
  const negate = h('select', { class: 'negate', 'aria-label': `${label}: is or is not` },
    h('option', { value: '' }, 'IS'), h('option', { value: 'not' }, 'IS NOT'))
  negate.value = c.negate ? 'not' : ''
  const error = h('span', { class: 'field-error', role: 'alert' })
  const operands = operandInputs(c, label, n, leafOnly)
  const element = h('li', { class: 'condition', 'data-type': c.type },
    h('div', { class: 'condition-head' }, h('strong', {}, label), negate,
      h('button', { type: 'button', class: 'small', 'aria-label': `remove condition ${label}`, onclick: remove }, 'Remove')),
    operands.element,
    error,
  )
  return {
    element, error, nested: operands.nested,
    value: () => ({ type: c.type, ...(negate.value === 'not' ? { negate: true } : {}), ...operands.value() }),
  }
}

interface Operands { element: HTMLElement | null; value(): Record<string, unknown>; nested: ConditionsEditor | null }

function operandInputs(c: AnyCondition, label: string, n: number, leafOnly: boolean): Operands {
  const type = c.type as LeafType | 'group'
  if (type === 'group') {
    if (leafOnly) return { element: h('p', {}, 'A group inside a group is not allowed.'), value: () => ({}), nested: null }
    const nested = conditionsEditor(c.all ?? [], `group ${n}`, true)
    return { element: h('div', { class: 'group' }, h('small', {}, 'All of these (IS NOT: not all of them):'), nested.element), value: () => ({ all: nested.value() }), nested }
  }
  if (type === 'unique' || type === 'bot') return { element: null, value: () => ({}), nested: null }
  if (type === 'time') return timeInputs(c, label)
  if (type === 'param') return paramInputs(c, label)
  const choices = CHOICES[type]
  if (choices) {
    const boxes = choices.map((v) => h('input', { type: 'checkbox', value: v, checked: (c.values ?? []).includes(v) }))
    return {
      element: h('div', { class: 'choices', role: 'group', 'aria-label': `${label} values` }, boxes.map((b) => h('label', {}, b, ` ${b.value}`))),
      value: () => ({ values: boxes.filter((b) => b.checked).map((b) => b.value) }),
      nested: null,
    }
  }
  const values = h('textarea', { rows: 2, 'aria-label': `${label} values`, placeholder: HINTS[type] ?? 'comma or line separated' })
  values.value = (c.values ?? []).join(', ')
  const parts: HTMLElement[] = [h('label', { class: 'wide' }, values)]
  let version: (() => Record<string, unknown>) | null = null
  if (type === 'os' || type === 'browser') {
    const op = h('select', { 'aria-label': `${label} version comparison` },
      h('option', { value: '' }, 'any version'), h('option', { value: 'eq' }, 'version ='), h('option', { value: 'gte' }, 'version ≥'), h('option', { value: 'lte' }, 'version ≤'))
    op.value = c.version?.op ?? ''
    const v = h('input', { 'aria-label': `${label} version`, size: 6, placeholder: '17', value: c.version?.value ?? '' })
    parts.push(op, v)
    version = () => (op.value ? { version: { op: op.value, value: numeric(v.value.trim()) } } : {})
  }
  return {
    element: h('div', { class: 'operands' }, parts),
    value: () => {
      const items = splitList(values.value)
      return { values: type === 'asn' ? items.map(numeric) : items, ...(version ? version() : {}) }
    },
    nested: null,
  }
}

function paramInputs(c: AnyCondition, label: string): Operands {
  const name = h('input', { 'aria-label': `${label} name`, size: 10, value: c.name ?? '' })
  const op = h('select', { 'aria-label': `${label} operator` }, PARAM_OPS.map((o) => h('option', { value: o }, o)))
  op.value = c.op ?? 'equals'
  const one = h('input', { 'aria-label': `${label} value`, value: c.value ?? '' })
  const many = h('textarea', { rows: 2, 'aria-label': `${label} values`, placeholder: 'comma or line separated' })
  many.value = (c.values ?? []).join(', ')
  const ignoreCase = h('input', { type: 'checkbox', checked: c.ignore_case === true })
  const ignoreLabel = h('label', {}, ignoreCase, ' ignore case')
  const show = () => {
    one.hidden = op.value !== 'equals' && op.value !== 'regex'
    many.hidden = op.value !== 'in' && op.value !== 'prefix'
    ignoreLabel.hidden = op.value === 'empty' || op.value === 'missing'
  }
  op.addEventListener('change', show)
  show()
  return {
    element: h('div', { class: 'operands' }, name, op, one, many, ignoreLabel),
    value: () => ({
      name: name.value.trim(), op: op.value,
      ...(op.value === 'equals' || op.value === 'regex' ? { value: one.value } : {}),
      ...(op.value === 'in' || op.value === 'prefix' ? { values: splitList(many.value) } : {}),
      ...(ignoreCase.checked && !ignoreLabel.hidden ? { ignore_case: true } : {}),
    }),
    nested: null,
  }
}

function timeInputs(c: AnyCondition, label: string): Operands {
  const tz = h('input', { 'aria-label': `${label} time zone`, size: 16, value: c.tz ?? 'UTC', placeholder: 'Europe/Berlin' })
  const from = h('input', { 'aria-label': `${label} from`, size: 5, value: c.from ?? '', placeholder: 'HH:MM' })
  const to = h('input', { 'aria-label': `${label} to`, size: 5, value: c.to ?? '', placeholder: 'HH:MM' })
  const days = DAYS.map((d) => h('input', { type: 'checkbox', value: d, checked: (c.days ?? []).includes(d) }))
  return {
    element: h('div', { class: 'operands' },
      h('label', {}, 'zone ', tz), h('label', {}, 'from ', from), h('label', {}, 'to ', to),
      h('span', { class: 'choices', role: 'group', 'aria-label': `${label} days` }, days.map((d) => h('label', {}, d, ` ${d.value}`)))),
    value: () => {
      const picked = days.filter((d) => d.checked).map((d) => d.value)
      return {
        tz: tz.value.trim(),
        ...(from.value.trim() ? { from: from.value.trim() } : {}),
        ...(to.value.trim() ? { to: to.value.trim() } : {}),
        ...(picked.length ? { days: picked } : {}),
      }
    },
    nested: null,
  }
}
