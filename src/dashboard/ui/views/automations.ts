// Email automations: a list's timed message sequence. The step editor: each step a delay (hours and minutes
// after the subscriber joined), a subject and a text body, in the order they are sent.
import { all, api, can, type Me } from '../api'
import { field, h, mount } from '../dom'
import { clearErrors, showErrors, upsert } from '../forms'

interface Step { delay_minutes: number; subject: string; text: string; html: string | null }
interface Automation { id: number; list_id: number; name: string; active: boolean; steps: Step[] }

export async function automationsView(me: Me): Promise<HTMLElement> {
  const [automations, lists] = await Promise.all([all<Automation>('/automations'), all<{ id: number; name: string }>('/email-lists')])
  const listName = new Map(lists.map((l) => [l.id, l.name]))
  const writable = can(me, 'email', 'write')
  const tbody = h('tbody')
  const editor = h('div')
  const render = () => mount(tbody, automations.length === 0 ? h('tr', {}, h('td', { colspan: 4 }, 'No automations yet.')) : automations.map((a) => h('tr', { 'data-automation': a.name },
    h('td', {}, a.name), h('td', {}, listName.get(a.list_id) ?? String(a.list_id)), h('td', {}, `${a.steps.length} step${a.steps.length === 1 ? '' : 's'}${a.active ? '' : ' (paused)'}`),
    h('td', {}, writable ? h('button', { type: 'button', class: 'small', onclick: () => open(a) }, 'Edit') : null))))

  const open = (existing: Automation | null) => {
    const name = h('input', { name: 'name', required: true, value: existing?.name ?? '' })
    const list = h('select', { name: 'list_id' }, lists.map((l) => h('option', { value: l.id }, l.name)))
    if (existing) list.value = String(existing.list_id)
    const active = h('input', { name: 'active', type: 'checkbox', checked: existing?.active ?? true })
    const steps = h('ol', { class: 'steps' })
    const addStep = (step: Step | null) => {
      const n = steps.children.length + 1
      const minutes = step?.delay_minutes ?? (n === 1 ? 0 : 1440)
      const hours = h('input', { type: 'number', min: 0, value: Math.floor(minutes / 60), 'aria-label': `step ${n} delay hours` })
      const mins = h('input', { type: 'number', min: 0, max: 59, value: minutes % 60, 'aria-label': `step ${n} delay minutes` })
      const subject = h('input', { 'aria-label': `step ${n} subject`, value: step?.subject ?? '' })
      const body = Object.assign(h('textarea', { rows: 4, 'aria-label': `step ${n} text` }), { value: step?.text ?? '' })
      const item = h('li', { class: 'step' },
        h('div', { class: 'rotation-row' }, 'after', hours, 'h', mins, 'min'),
        subject, body,
        h('button', { type: 'button', class: 'small', onclick: () => item.remove() }, `Remove step ${n}`))
      steps.append(item)
    }
    for (const st of existing?.steps ?? [null]) addStep(st)
    const form = h('form', { class: 'card', 'aria-labelledby': 'automation-form' },
      h('h2', { id: 'automation-form' }, existing ? `Edit "${existing.name}"` : 'New automation'),
      field('Name', name), field('List', list), h('div', { class: 'field' }, h('label', {}, active, ' Active')),
      h('fieldset', {}, h('legend', {}, 'Steps (sent in this order; macros {name} {email} {unsubscribe_url})'), steps,
        h('button', { type: 'button', class: 'small', onclick: () => addStep(null) }, 'Add step'),
        h('span', { class: 'field-error', 'data-error-for': 'steps', role: 'alert' })),
      h('p', { class: 'form-error', role: 'alert' }),
      h('button', { type: 'submit' }, existing ? 'Save' : 'Create automation'), ' ',
      h('button', { type: 'button', class: 'small', onclick: () => editor.replaceChildren() }, 'Cancel'))
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      clearErrors(form)
      const body = {
        name: name.value, list_id: Number(list.value), active: active.checked,
        steps: [...steps.children].map((li) => {
          const [hours, mins] = [...li.querySelectorAll<HTMLInputElement>('input[type=number]')]
          return {
            delay_minutes: Number(hours!.value || 0) * 60 + Number(mins!.value || 0),
            subject: li.querySelector<HTMLInputElement>('input:not([type])')!.value,
            text: li.querySelector('textarea')!.value,
          }
        }),
      }
      try {
        const saved = await api<Automation>(existing ? 'PATCH' : 'POST', existing ? `/automations/${existing.id}` : '/automations', body)
        upsert(automations, existing, saved)
        editor.replaceChildren()
        render()
      } catch (err) { showErrors(form, err) }
    })
    mount(editor, form)
    name.focus()
  }
  render()
  return h('section', { 'aria-labelledby': 'automations-title' },
    h('div', { class: 'toolbar' }, h('h1', { id: 'automations-title' }, 'Email automations'),
      writable && lists.length ? h('button', { type: 'button', onclick: () => open(null) }, 'New automation') : null),
    editor, h('div', { class: 'table-wrap' }, h('table', {}, h('thead', {}, h('tr', {}, ['Name', 'List', 'Steps', ''].map((c) => h('th', { scope: 'col' }, c)))), tbody)))
}
