// Rule sets (issue 28): saved conditions that paths of several campaigns share; a change applies to every
// path using one. Listed with the campaigns using each; one in use cannot be deleted (the API's 409 says
// which campaign), so the message is shown as the server words it.
import { all, api, can, type Me } from '../api'
import { conditionsEditor, describeCondition } from '../conditions'
import { field, h, mount } from '../dom'
import { clearErrors, showErrors, upsert } from '../forms'
import { periodFromParams, periodQuery, periodToParams, type Period } from '../period'
import { currentParams, writeParams } from '../url-state'
import type { PathRecord, RuleSetRecord } from './paths-editor'
import { count, percent, type Report, type ReportRow } from './numbers/numbers'
import { periodPicker } from './numbers/period-picker'

interface Named { id: number; name: string }

/** Where rule sets act: each campaign path using one, with its report row for the period (group_by=path). */
interface UsedPath { campaign: string; path: PathRecord; row: ReportRow | null }

async function usage(sets: RuleSetRecord[], period: Period): Promise<Map<number, UsedPath[]>> {
  const ids = [...new Set(sets.flatMap((r) => r.campaign_ids))]
  const out = new Map<number, UsedPath[]>()
  await Promise.all(ids.map(async (id) => {
    const [c, rep] = await Promise.all([
      api<{ name: string; paths?: PathRecord[] }>('GET', `/campaigns/${id}`),
      api<Report>('GET', `/reports?${new URLSearchParams({ group_by: 'path', campaign_id: String(id), limit: '1000', ...periodQuery(period) })}`).catch(() => null),
    ])
    for (const p of c.paths ?? []) {
      if (p.rule_set_id === null) continue
      const row = rep?.rows.find((r) => r.key === p.id) ?? null
      out.set(p.rule_set_id, [...(out.get(p.rule_set_id) ?? []), { campaign: c.name, path: p, row }])
    }
  }))
  return out
}

export async function ruleSetsView(me: Me, params: URLSearchParams = new URLSearchParams()): Promise<HTMLElement> {
  const [sets, campaigns] = await Promise.all([all<RuleSetRecord>('/rule-sets'), all<Named>('/campaigns')])
  const campaignName = new Map(campaigns.map((c) => [c.id, c.name]))
  const writable = can(me, 'campaigns', 'write')
  const tbody = h('tbody')
  const status = h('p', { class: 'form-error', role: 'alert' })
  const editor = h('div')
  const tz = (me as Me & { time_zone?: string }).time_zone || 'UTC'
  let period = periodFromParams(params, tz, '7d')
  let used = new Map<number, UsedPath[]>()
  const loadUsage = async () => {
    used = await usage(sets, period).catch(() => new Map<number, UsedPath[]>())
    render()
  }
  const picker = periodPicker(period, (p) => {
    period = p
    const q = currentParams()
    periodToParams(p, q)
    writeParams(q)
    void loadUsage()
  })
  const whereCell = (r: RuleSetRecord) => {
    const list = used.get(r.id) ?? []
    if (!list.length) return h('td', { class: 'wrap', 'data-where': '' }, r.campaign_ids.length ? '…' : '—')
    return h('td', { class: 'wrap', 'data-where': '' }, h('ul', { class: 'n-where' }, list.map((u) => h('li', { 'data-path-id': u.path.id },
      `${u.campaign} › ${u.path.name || `path #${u.path.id}`}${u.path.active ? '' : ' (inactive)'}: `,
      h('span', { 'data-col': 'clicks' }, `${count(u.row?.clicks ?? 0)} clicks`), `, ${count(u.row?.conversions ?? 0)} conv., CR ${percent(u.row?.cr)}`))))
  }

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
        void loadUsage()
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
    mount(tbody, sets.length === 0 ? h('tr', {}, h('td', { colspan: 5 }, 'No rule sets yet.')) : sets.map((r) => h('tr', { 'data-rule-set': r.id },
      h('td', {}, r.name),
      h('td', { class: 'wrap' }, r.conditions.length ? r.conditions.map(describeCondition).join(' AND ') : '(none: every visitor)'),
      h('td', { class: 'wrap' }, r.campaign_ids.length ? r.campaign_ids.map((id) => campaignName.get(id) ?? `#${id}`).join(', ') : '—'),
      whereCell(r),
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
  void loadUsage()
  return h('section', { 'aria-labelledby': 'rule-sets-title' },
    h('div', { class: 'toolbar' }, h('h1', { id: 'rule-sets-title' }, 'Rule sets'),
      writable ? h('button', { type: 'button', onclick: () => edit(null) }, 'New rule set') : null),
    h('p', {}, "Saved conditions a campaign's paths can use (Campaigns → Edit → Targeting paths → Rule set)."),
    h('p', {}, picker.element), status, editor,
    h('div', { class: 'table-wrap' }, h('table', {},
      h('thead', {}, h('tr', {}, ['Name', 'Conditions', 'Used by', 'Where it acts (path clicks)', ''].map((c) => h('th', { scope: 'col' }, c)))), tbody)),
  )
}
