// A weighted rotation editor (offers, and optional landings): each row an offer or landing and its weight,
// with its share of the traffic spelled out. Used by a campaign's default rotation and by each path's own.
import { h } from '../dom'

export interface Named { id: number; name: string }

/**
 * One rotation (offers or landings): rows of a select and a weight, plus the share each row gets. `name` is
 * the field its error slot stands for (a path's own rotation: "action.offers").
 */
export function rotation(kind: 'offer' | 'landing', choices: Named[], initial: Array<{ id: number; weight: number }>, required: boolean,
  name: string = kind === 'offer' ? 'offers' : 'landings') {
  const rows = h('div', { class: 'rotation' })
  const shares = () => {
    const lines = [...rows.querySelectorAll<HTMLElement>('.rotation-row')]
    const total = lines.reduce((sum, l) => sum + Math.max(0, Number(l.querySelector<HTMLInputElement>('input')!.value) || 0), 0)
    for (const l of lines) {
      const w = Math.max(0, Number(l.querySelector<HTMLInputElement>('input')!.value) || 0)
      l.querySelector('.share')!.textContent = total ? `${Math.round((w / total) * 100)} % of traffic` : ''
    }
  }
  const add = (id: number | null, weight: number) => {
    const n = rows.children.length + 1
    const select = h('select', { 'aria-label': `${kind} ${n}` }, choices.map((c) => h('option', { value: c.id }, c.name)))
    if (id !== null) select.value = String(id)
    const w = h('input', { type: 'number', min: 1, max: 10000, step: 1, value: weight, 'aria-label': `weight of ${kind} ${n}`, oninput: shares })
    const row = h('div', { class: 'rotation-row' }, select, w, h('span', { class: 'share' }),
      h('button', { type: 'button', class: 'small', 'aria-label': `remove ${kind} ${n}`, onclick: () => { row.remove(); shares() } }, 'Remove'))
    rows.append(row)
    shares()
  }
  for (const r of initial) add(r.id, r.weight)
  if (required && initial.length === 0 && choices.length) add(choices[0]!.id, 100)
  const element = h('fieldset', {},
    h('legend', {}, kind === 'offer' ? 'Offers (rotation)' : 'Landings (rotation, optional)'),
    choices.length ? rows : h('p', {}, `No ${kind}s yet: create one first.`),
    choices.length ? h('button', { type: 'button', class: 'small', onclick: () => add(null, 100) }, `Add ${kind}`) : null,
    h('span', { class: 'field-error', 'data-error-for': name, role: 'alert' }),
  )
  const value = () => [...rows.querySelectorAll<HTMLElement>('.rotation-row')].map((l) => ({
    [`${kind}_id`]: Number(l.querySelector('select')!.value), weight: Number(l.querySelector<HTMLInputElement>('input')!.value),
  }))
  return { element, value }
}
