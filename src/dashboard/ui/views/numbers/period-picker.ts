// The period the editors' numbers cover: a preset (period.ts, local days in the instance's zone) or a custom
// range of two dates. Calls onChange with the new period; the caller reloads its numbers.
import { h } from '../../dom'
import { isDay, isPreset, lastDay, periodOf, PRESETS, type Period } from '../../period'

let pickers = 0

export function periodPicker(initial: Period, onChange: (p: Period) => void): { element: HTMLElement; value(): Period } {
  const n = ++pickers
  let current = initial
  const preset = h('select', { id: `period-${n}`, name: 'period' }, PRESETS.map((p) => h('option', { value: p.id }, p.label)))
  preset.value = initial.preset
  const from = h('input', { type: 'date', name: 'from', 'aria-label': 'first day', value: initial.from })
  const last = h('input', { type: 'date', name: 'last', 'aria-label': 'last day', value: lastDay(initial) })
  const custom = h('span', { class: 'n-custom' }, from, ' – ', last)
  const sync = () => { custom.hidden = preset.value !== 'custom' }
  const changed = () => {
    sync()
    if (!isPreset(preset.value)) return
    if (preset.value === 'custom' && !(isDay(from.value) && isDay(last.value) && from.value <= last.value)) return
    current = periodOf(preset.value, initial.tz, Date.now(), { from: from.value, last: last.value })
    onChange(current)
  }
  preset.addEventListener('change', changed)
  from.addEventListener('change', changed)
  last.addEventListener('change', changed)
  sync()
  const element = h('span', { class: 'n-period' }, h('label', { for: preset.id }, 'Numbers for'), ' ', preset, ' ', custom,
    h('small', { class: 'muted' }, ` (${initial.tz})`))
  return { element, value: () => current }
}
