// A campaign's targeting paths (issue 28): in order, each with a name, an active switch, an optional rule
// set, its conditions and its action. The first path whose conditions all hold takes the visitor; none →
// the campaign's default rotation. Saved as the campaign's `paths`, which replaces the whole list in this
// order; an existing path keeps its `id` (its clicks stay with it).
import type { Condition } from '../../../rules'
import { field, h } from '../dom'
import type { Cap } from './numbers/entry-cap'
import { conditionsEditor, describeCondition, type ConditionsEditor } from '../conditions'
import { rotation, type Named, type RotationEditor } from './rotation'
import type { EditorNumbers } from './numbers/editor-data'
import { pathNumbers } from './numbers/path-numbers'

export type ActionType = 'rotation' | 'url' | 'bot_url' | 'not_found'
export interface PathRecord {
  id: number; name: string; active: boolean; rule_set_id: number | null; conditions: Condition[]
  action: {
    type: ActionType; url: string | null
    offers: Array<{ offer_id: number; weight: number; auto_weight?: number | null; cap?: Cap | null }>
    landings: Array<{ landing_id: number; weight: number; auto_weight?: number | null }>
  }
}
export interface RuleSetRecord { id: number; name: string; conditions: Condition[]; campaign_ids: number[] }

const ACTIONS: Array<[ActionType, string]> = [
  ['rotation', "Rotation: this path's own offers (and landings)"],
  ['url', 'Direct URL'],
  ["bot_url", "The campaign's bot URL"],
  ['not_found', 'Not found (404 page, or the fallback URL)'],
]

interface PathItem {
  element: HTMLElement
  value(): Record<string, unknown>
  conditions: ConditionsEditor
  rotations: { offers: RotationEditor; landings: RotationEditor }
  error: HTMLElement
  setIndex(i: number, count: number): void
}

export interface PathsEditor {
  element: HTMLElement
  value(): Array<Record<string, unknown>>
  /** Puts a "paths.N.…: message" error on path N (and its condition); false when it names no path. */
  showError(message: string): boolean
  clearErrors(): void
}

/** `numbers`: a saved campaign's loader; each saved path then shows its numbers and its rotation's. */
export function pathsEditor(initial: readonly PathRecord[], choices: { offers: Named[]; landings: Named[]; ruleSets: RuleSetRecord[] }, numbers?: EditorNumbers): PathsEditor {
  const items: PathItem[] = []
  const list = h('div', { class: 'paths' })
  const empty = h('p', { class: 'muted' }, 'No paths: every visitor gets the default rotation above.')
  const layout = () => {
    // Re-appending moves the existing nodes: their inputs keep what was typed.
    list.append(...items.map((it) => it.element))
    items.forEach((it, i) => it.setIndex(i, items.length))
    empty.hidden = items.length > 0
  }
  const move = (item: PathItem, by: -1 | 1) => {
    const i = items.indexOf(item)
    const j = i + by
    if (j < 0 || j >= items.length) return
    ;[items[i], items[j]] = [items[j]!, items[i]!]
    layout()
    item.element.querySelector<HTMLButtonElement>(by < 0 ? '[data-move="up"]' : '[data-move="down"]')?.focus()
  }
  const add = (p: PathRecord | null) => {
    const item = pathItem(p, choices, numbers, { move: (by) => move(item, by), remove: () => { items.splice(items.indexOf(item), 1); item.element.remove(); layout() } })
    items.push(item)
    layout()
    return item
  }
  for (const p of initial) add(p)
  layout()
  const element = h('fieldset', { class: 'paths-editor' },
    h('legend', {}, 'Targeting paths (tried in order, before the default rotation)'),
    empty, list,
    h('button', { type: 'button', class: 'small', onclick: () => add(null).element.querySelector('input')?.focus() }, 'Add path'),
    h('span', { class: 'field-error', 'data-error-for': 'paths', role: 'alert' }),
  )
  return {
    element,
    value: () => items.map((it) => it.value()),
    showError(message) {
      const m = /^paths\.(\d+)\.(\S+): /.exec(message)
      const item = m ? items[Number(m[1])] : undefined
      if (!item) return false
      const cond = /^conditions\.(.+)$/.exec(m![2]!)
      const entry = /^action\.(offers|landings)\.(.+)$/.exec(m![2]!)
      const shown = (entry && item.rotations[entry[1] as 'offers'].showError(entry[2]!, message)) || (cond && item.conditions.showError(cond[1]!, message))
      if (!shown) item.error.textContent = message
      item.element.setAttribute('aria-invalid', 'true')
      return true
    },
    clearErrors() {
      for (const it of items) {
        it.error.textContent = ''
        it.element.removeAttribute('aria-invalid')
        it.conditions.clearErrors()
        it.rotations.offers.clearErrors()
        it.rotations.landings.clearErrors()
      }
    },
  }
}

function pathItem(p: PathRecord | null, choices: { offers: Named[]; landings: Named[]; ruleSets: RuleSetRecord[] }, numbers: EditorNumbers | undefined,
  on: { move(by: -1 | 1): void; remove(): void }): PathItem {
  const legend = h('legend', {})
  const name = h('input', { name: 'path_name', value: p?.name ?? '', placeholder: 'e.g. Mobile DE' })
  const active = h('input', { type: 'checkbox', checked: p ? p.active : true })
  const ruleSet = h('select', { name: 'rule_set_id' }, h('option', { value: '' }, '(none)'),
    choices.ruleSets.map((r) => h('option', { value: r.id }, r.name)))
  ruleSet.value = p?.rule_set_id ? String(p.rule_set_id) : ''
  const ruleSetSummary = h('small', { class: 'muted' })
  const summarize = () => {
    const rs = choices.ruleSets.find((r) => String(r.id) === ruleSet.value)
    ruleSetSummary.textContent = rs ? `Also requires: ${rs.conditions.map(describeCondition).join(' AND ') || '(no conditions)'}` : ''
  }
  ruleSet.addEventListener('change', summarize)
  summarize()
  const conditions = conditionsEditor(p?.conditions ?? [], 'path')
  const actionType = h('select', { name: 'action_type' }, ACTIONS.map(([v, l]) => h('option', { value: v }, l)))
  actionType.value = p?.action.type ?? 'rotation'
  // A saved path's numbers (a new one has no clicks yet).
  const source = numbers && p ? { numbers, pathId: p.id } : undefined
  const offers = rotation('offer', choices.offers, p?.action.offers.map((o) => ({ id: o.offer_id, weight: o.weight, auto_weight: o.auto_weight, cap: o.cap })) ?? [], true, 'action.offers', source)
  const landings = rotation('landing', choices.landings, p?.action.landings.map((l) => ({ id: l.landing_id, weight: l.weight, auto_weight: l.auto_weight })) ?? [], false, 'action.landings', source)
  const url = h('input', { name: 'action_url', type: 'url', value: p?.action.url ?? '', placeholder: 'https://example.com/?click={click_id}&s={sub1}' })
  const rotationPart = h('div', {}, offers.element, landings.element)
  const urlPart = field('URL template', url, 'Absolute http(s) URL; {click_id}, {sub1}… as in offer URLs')
  const showAction = () => {
    rotationPart.hidden = actionType.value !== 'rotation'
    urlPart.hidden = actionType.value !== 'url'
  }
  actionType.addEventListener('change', showAction)
  showAction()
  const up = h('button', { type: 'button', class: 'small', 'data-move': 'up', onclick: () => on.move(-1) }, '↑')
  const down = h('button', { type: 'button', class: 'small', 'data-move': 'down', onclick: () => on.move(1) }, '↓')
  const error = h('p', { class: 'field-error', role: 'alert' })
  const element = h('fieldset', { class: 'path', 'data-path-id': p?.id ?? null },
    legend,
    source ? pathNumbers(source.numbers, source.pathId) : null,
    h('div', { class: 'path-tools' }, up, down,
      h('button', { type: 'button', class: 'small', onclick: on.remove }, 'Remove path')),
    field('Path name', name),
    h('div', { class: 'field' }, h('label', {}, active, ' Active (an inactive path is skipped)')),
    field('Rule set', ruleSet, "A saved rule set's conditions must hold as well as this path's own"), ruleSetSummary,
    h('h4', {}, 'Conditions (all must hold; none: every visitor)'), conditions.element,
    h('h4', {}, 'Then'), field('Action', actionType), rotationPart, urlPart,
    error,
  )
  return {
    element, conditions, error, rotations: { offers, landings },
    setIndex(i, count) {
      element.setAttribute('data-path', String(i))
      legend.textContent = `Path ${i + 1}`
      up.disabled = i === 0
      down.disabled = i === count - 1
      up.setAttribute('aria-label', `move path ${i + 1} up`)
      down.setAttribute('aria-label', `move path ${i + 1} down`)
    },
    value() {
      const type = actionType.value as ActionType
      return {
        ...(p ? { id: p.id } : {}),
        name: name.value.trim(),
        active: active.checked,
        rule_set_id: ruleSet.value ? Number(ruleSet.value) : null,
        conditions: conditions.value(),
        action: {
          type,
          ...(type === 'rotation' ? { offers: offers.value(), landings: landings.value() } : {}),
          ...(type === 'url' ? { url: url.value.trim() } : {}),
        },
      }
    },
  }
}
