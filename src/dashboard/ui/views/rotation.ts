// A weighted rotation editor (offers, and optional landings): each row an offer or landing and its weight,
// with its share of the traffic spelled out. Used by a campaign's default rotation and by each path's own.
// On a saved campaign each row also shows its numbers for the editor's period (issue 30: clicks, CR, EPC,
// landing CTR, share of clicks against share of weight), the split test's P(best) and verdict, the caps that
// act on it (an offer entry's own cap is edited here, saved with the campaign) and the auto weight that routes it.
import { h, mount } from '../dom'
import { entryCap, type Cap, type EntryCap } from './numbers/entry-cap'
import type { EditorNumbers } from './numbers/editor-data'
import { entryNumbers, rotationFooter } from './numbers/rotation-numbers'

export interface Named { id: number; name: string }
export interface RotationEntry { id: number; weight: number; auto_weight?: number | null; cap?: Cap | null }
/** Where a rotation's numbers come from: the editor's loader and the rotation's path (null: the default one). */
export interface RotationNumbersSource { numbers: EditorNumbers; pathId: number | null }

export interface RotationEditor {
  element: HTMLElement
  value(): Array<Record<string, unknown>>
  /** An API error about entry N ("1.cap.limit", "0.weight") put beside that entry's field; false if none. */
  showError(rest: string, message: string): boolean
  clearErrors(): void
}

interface Row { element: HTMLElement; select: HTMLSelectElement; weight: HTMLInputElement; cap: EntryCap | null; error: HTMLElement; redraw(): void }

/**
 * One rotation (offers or landings): rows of a select and a weight, plus the share each row gets. `name` is
 * the field its error slot stands for (a path's own rotation: "action.offers").
 */
export function rotation(kind: 'offer' | 'landing', choices: Named[], initial: RotationEntry[], required: boolean,
  name: string = kind === 'offer' ? 'offers' : 'landings', source?: RotationNumbersSource): RotationEditor {
  const kinds = kind === 'offer' ? 'offers' : 'landings'
  const rows = h('div', { class: 'rotation' })
  const list: Row[] = []
  const footer = h('div', { class: 'n-footer' })
  const weightOf = (r: Row) => Math.max(0, Number(r.weight.value) || 0)
  const shares = () => {
    const total = list.reduce((sum, r) => sum + weightOf(r), 0)
    for (const r of list) r.element.querySelector('.share')!.textContent = total ? `${Math.round((weightOf(r) / total) * 100)} % of traffic` : ''
  }
  const redraw = () => {
    shares()
    for (const r of list) r.redraw()
    if (source) mount(footer, rotationFooter(source.numbers, source.pathId, kinds, list.length))
  }
  const add = (entry: RotationEntry | null) => {
    const n = list.length + 1
    const select = h('select', { 'aria-label': `${kind} ${n}` }, choices.map((c) => h('option', { value: c.id }, c.name)))
    if (entry) select.value = String(entry.id)
    const weight = h('input', { type: 'number', min: 1, max: 10000, step: 1, value: entry?.weight ?? 100, 'aria-label': `weight of ${kind} ${n}` })
    // The auto weight belongs to the saved entry: it goes once another offer is picked in this row.
    const auto = h('span', { class: 'n-auto', 'data-auto-weight': '' })
    const cap = kind === 'offer' ? entryCap(entry?.cap ?? null, choices, `${kind} ${n}`) : null
    const numbers = h('div', { class: 'n-entry' })
    const error = h('span', { class: 'field-error', role: 'alert' })
    const element = h('div', { class: 'rotation-row', 'data-entry': select.value },
      h('div', { class: 'rotation-line' }, select, weight, h('span', { class: 'share' }), auto,
        h('button', { type: 'button', class: 'small', 'aria-label': `remove ${kind} ${n}`, onclick: () => { element.remove(); list.splice(list.indexOf(row), 1); redraw() } }, 'Remove')),
      source ? numbers : null, cap?.element, error)
    const row: Row = {
      element, select, weight, cap, error,
      redraw() {
        element.setAttribute('data-entry', select.value)
        const autoWeight = entry && String(entry.id) === select.value ? entry.auto_weight ?? null : null
        auto.textContent = autoWeight === null ? '' : `auto ${(autoWeight / 100).toFixed(2)} %`
        auto.title = autoWeight === null ? '' : 'set by auto-weights: routing uses it instead of the weight until auto-weights is switched off'
        if (!source) return
        const idsNow = list.map((r) => Number(r.select.value))
        const weightShare = autoWeight !== null ? autoWeight / 10_000 : (() => {
          const total = list.reduce((s, r) => s + weightOf(r), 0)
          return total ? weightOf(row) / total : null
        })()
        mount(numbers, entryNumbers(source.numbers, source.pathId, kinds, Number(select.value), idsNow, weightShare, cap?.status ?? null))
      },
    }
    select.addEventListener('change', redraw)
    weight.addEventListener('input', redraw)
    list.push(row)
    rows.append(element)
    redraw()
  }
  for (const r of initial) add(r)
  if (required && initial.length === 0 && choices.length) add({ id: choices[0]!.id, weight: 100 })
  source?.numbers.on(redraw)
  const element = h('fieldset', { class: 'rotation-editor', 'data-rotation-editor': source ? `${source.pathId ?? 0}-${kinds}` : null },
    h('legend', {}, kind === 'offer' ? 'Offers (rotation)' : 'Landings (rotation, optional)'),
    choices.length ? rows : h('p', {}, `No ${kind}s yet: create one first.`),
    choices.length ? h('button', { type: 'button', class: 'small', onclick: () => add(null) }, `Add ${kind}`) : null,
    h('span', { class: 'field-error', 'data-error-for': name, role: 'alert' }),
    source ? footer : null,
  )
  return {
    element,
    value: () => list.map((r) => ({
      [`${kind}_id`]: Number(r.select.value), weight: Number(r.weight.value),
      ...(r.cap ? { cap: r.cap.value() } : {}),
    })),
    showError(rest, message) {
      const m = /^(\d+)\.(.+)$/.exec(rest)
      const row = m ? list[Number(m[1])] : undefined
      if (!row) return false
      const cap = /^cap(?:\.([a-z_]+))?$/.exec(m![2]!)
      if (cap && row.cap) return row.cap.showError(cap[1] ?? 'cap', message)
      row.error.textContent = message
      ;(m![2] === 'weight' ? row.weight : row.select).setAttribute('aria-invalid', 'true')
      return true
    },
    clearErrors() {
      for (const r of list) {
        r.error.textContent = ''
        r.weight.removeAttribute('aria-invalid')
        r.select.removeAttribute('aria-invalid')
        r.cap?.clearErrors()
      }
    },
  }
}
