// Rule sets (issue 28): saved conditions that paths of several campaigns share; a change applies to every
// path using one. Listed with the campaigns using each; one in use cannot be deleted (the API's 409 says
// which campaign), so the message is shown as the server words it.
import { all, api, can, type Me } from '../api'
import { conditionsEditor, describeCondition } from '../conditions'
import { field, h, mount } from '../dom'
import { clearErrors, showErrors, upsert } from '../forms'
import type { RuleSetRecord } from './paths-editor'

interface Named { id: number; name: string }

export async function ruleSetsView(me: Me): Promise<HTMLElement> {
  const [sets, campaigns] = await Promise.all([all<RuleSetRecord>('/rule-sets'), all<Named>('/campaigns')])
  const campaignName = new Map(campaigns.map((c) => [c.id, c.name]))
  const writable = can(me, 'campaigns', 'write')
  const tbody = h('tbody')
  const status = h('p', { class: 'form-error', role: 'alert' })
  const editor = h('div')

  const edit = (existing: RuleSetRecord | null) => {
    const name = h('input', { name: 'name', required: true, value: existing?.name ?? '' })
    const conditions = conditionsEditor(existing?.conditions ?? [], 'rule set')
    const form = h('form', { class: 'card', 'aria-labelledby': 'rule-set-form-title' },
      h('h2', { id: 'rule-set-form-title' }, existing ? `Edit rule set "${existing.name}"` : 'New rule set'),
      field('Name', name),
      h('fieldset', {}, h('legend', {}, 'Conditions (all must hold)'), conditions.element,
        h('span', { class: 'field-error', 'data-error-for': 'conditions', role: 'alert' })),
      existing?.campaign_ids.length ? h('p', {}, 'A change applies to the paths of every campaign using it.') : null,
      h('p', { class: 'form-error', role: 'alert' }),
      h('button', { type: 'submit' }, existing ? 'Save' : 'Create rule set'), ' ',
      h('button', { type: 'button', class: 'small', onclick: () => editor.replaceChildren() }, 'Cancel'),
    )
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      clearErrors(form)
      conditions.clearErrors()
      try {
        const saved = await api<RuleSetRecord>(existing ? 'PATCH' : 'POST', existing ? `/rule-sets/${existing.id}` : '/rule-sets',
          { name: name.value, conditions: conditions.value() })
        upsert(sets, existing, saved)
        editor.replaceChildren()
        render()
      } catch (err) {
        showErrors(form, err)
        const m = err instanceof Error ? /^conditions\.(\S+): /.exec(err.message) : null
        if (m) conditions.showError(m[1]!, err instanceof Error ? err.message : '')
      }
    })
    mount(editor, form)
    name.focus()
  }

  const render = () => {
    mount(tbody, sets.length === 0 ? h('tr', {}, h('td', { colspan: 4 }, 'No rule sets yet.')) : sets.map((r) => h('tr', { 'data-rule-set': r.id },
      h('td', {}, r.name),
      h('td', { class: 'wrap' }, r.conditions.length ? r.conditions.map(describeCondition).join(' AND ') : '(none: every visitor)'),
      h('td', { class: 'wrap' }, r.campaign_ids.length ? r.campaign_ids.map((id) => campaignName.get(id) ?? `#${id}`).join(', ') : '—'),
      h('td', { class: 'actions' }, writable ? [
        h('button', { type: 'button', class: 'small', onclick: () => edit(r) }, 'Edit'),
        h('button', { type: 'button', class: 'small', onclick: async () => {
          status.textContent = ''
          if (!confirm(`Delete the rule set "${r.name}"?`)) return
          try {
            await api('DELETE', `/rule-sets/${r.id}`)
            sets.splice(sets.indexOf(r), 1)
            render()
          } catch (err) {
            // 409: a path still uses it; the message names the campaign.
            status.textContent = (err as Error).message
          }
        } }, 'Delete'),
      ] : null),
    )))
  }
  render()
  return h('section', { 'aria-labelledby': 'rule-sets-title' },
    h('div', { class: 'toolbar' }, h('h1', { id: 'rule-sets-title' }, 'Rule sets'),
      writable ? h('button', { type: 'button', onclick: () => edit(null) }, 'New rule set') : null),
    h('p', {}, "Saved conditions a campaign's paths can use (Campaigns → Edit → Targeting paths → Rule set)."),
    status, editor,
    h('div', { class: 'table-wrap' }, h('table', {},
      h('thead', {}, h('tr', {}, ['Name', 'Conditions', 'Used by', ''].map((c) => h('th', { scope: 'col' }, c)))), tbody)),
  )
}
