// The period bar of the lists with numbers: the presets as toggle buttons, a custom range (first and last
// day, inclusive), and the time zone the days are counted in.
import { h } from '../../dom'
import { lastDay, periodOf, PRESETS, type Period } from '../../period'

export function periodBar(initial: Period, onChange: (p: Period) => void): HTMLElement {
  let current = initial
  const first = h('input', { type: 'date', name: 'first_day', 'aria-label': 'First day', value: current.from })
  const last = h('input', { type: 'date', name: 'last_day', 'aria-label': 'Last day', value: lastDay(current) })
  const error = h('span', { class: 'form-error', role: 'alert' })
  const custom = h('span', { class: 'period-custom', hidden: current.preset !== 'custom' }, first, '–', last,
    h('button', { type: 'button', class: 'small', onclick: () => {
      error.textContent = ''
      if (!first.value || !last.value || first.value > last.value) { error.textContent = 'The first day must be on or before the last day.'; return }
      set(periodOf('custom', current.tz, Date.now(), { from: first.value, last: last.value }))
    } }, 'Apply'), error)
  const buttons = PRESETS.map((p) => h('button', { type: 'button', class: 'small', 'data-period': p.id, 'aria-pressed': String(p.id === current.preset), onclick: () => {
    if (p.id === 'custom') {
      custom.hidden = false
      mark('custom')
      first.focus()
      return
    }
    custom.hidden = true
    set(periodOf(p.id, current.tz))
  } }, p.label))
  const mark = (id: string) => { for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.period === id)) }
  const set = (p: Period) => {
    current = p
    mark(p.preset)
    first.value = p.from
    last.value = lastDay(p)
    onChange(p)
  }
  return h('div', { class: 'period-bar', role: 'group', 'aria-label': 'Period' },
    h('span', { class: 'period-presets' }, buttons), custom,
    h('small', { class: 'muted', 'data-tz': current.tz }, `Times in ${current.tz}`))
}
