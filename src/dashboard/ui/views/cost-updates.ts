// The campaign's cost updates (docs/costs.md): the real spend of days (optionally one sub value) spread over
// their clicks, and the same as a CSV upload. Both replace the clicks' cost; sending again changes nothing.
import { api } from '../api'
import { field, h, mount } from '../dom'
import { clearErrors, showErrors } from '../forms'

interface Applied { clicks: number; amount: number; currency: string; days: Array<{ day: string; clicks: number; amount: number }> }

const today = () => new Date().toISOString().slice(0, 10)

export function costUpdates(campaignId: number): HTMLElement {
  const from = h('input', { name: 'from', type: 'date', required: true, value: today() })
  const to = h('input', { name: 'to', type: 'date', required: true, value: today() })
  const zone = h('input', { name: 'time_zone', value: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC' })
  const subName = h('input', { name: 'sub', placeholder: 'sub1 (optional)' })
  const subValue = h('input', { name: 'sub_value', placeholder: 'e.g. a zone id' })
  const amount = h('input', { name: 'amount', required: true, inputmode: 'decimal', placeholder: '125.40' })
  const done = h('p', { 'aria-live': 'polite', 'data-cost-result': '' })
  const form = h('form', { class: 'card', 'aria-labelledby': `cost-title-${campaignId}`, 'data-cost-update': campaignId },
    h('h3', { id: `cost-title-${campaignId}` }, 'Update cost'),
    h('p', {}, 'The real spend of these days (in the cost currency), spread over their clicks to the cent. It replaces their cost: sending it again changes nothing.'),
    h('div', { class: 'filters' },
      field('From', from), field('To', to), field('Time zone', zone), field('Sub', subName, 'sub1..sub10 or a link parameter'), field('Sub value', subValue),
      field('Amount', amount)),
    h('p', { class: 'form-error', role: 'alert' }),
    h('button', { type: 'submit' }, 'Update cost'),
    done,
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearErrors(form)
    mount(done)
    const sub = subValue.value.trim() ? { sub: { name: subName.value.trim() || 'sub1', value: subValue.value.trim() } } : {}
    try {
      const r = await api<Applied>('POST', '/cost-updates', {
        campaign_id: campaignId, from: from.value, to: to.value, time_zone: zone.value.trim() || 'UTC', amount: amount.value.trim(), ...sub,
      })
      mount(done, `Applied ${r.amount} ${r.currency} over ${r.clicks} clicks (${r.days.map((d) => `${d.day}: ${d.amount}`).join(', ')}).`)
    } catch (err) {
      showErrors(form, err)
    }
  })

  const csv = h('textarea', { name: 'csv', rows: 4, placeholder: 'date,campaign,sub_value,amount\n2026-11-20,my-campaign,zone-1,12.40' })
  const csvSub = h('input', { name: 'csv_sub', placeholder: 'sub1' })
  const imported = h('p', { 'aria-live': 'polite', 'data-cost-import': '' })
  const upload = h('form', { class: 'card', 'aria-label': 'Upload costs (CSV)' },
    h('h3', {}, 'Upload costs (CSV)'),
    field('CSV (date,campaign,sub_value,amount; campaign by id or slug)', csv), field('Sub of sub_value', csvSub), imported,
    h('button', { type: 'submit' }, 'Upload'))
  upload.addEventListener('submit', async (event) => {
    event.preventDefault()
    // The upload is the file itself as text/csv (the CSRF rule: a form could not send that).
    const q = new URLSearchParams({ time_zone: zone.value.trim() || 'UTC', ...(csvSub.value.trim() ? { sub: csvSub.value.trim() } : {}) })
    const res = await fetch(`/admin/api/cost-updates/import?${q}`, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'text/csv' }, body: csv.value })
    const body = await res.json().catch(() => null) as { rows?: Array<{ row: number; clicks: number; amount: number }>; error?: string } | null
    mount(imported, res.ok
      ? `Applied ${body?.rows?.length ?? 0} rows: ${(body?.rows ?? []).map((r) => `row ${r.row}: ${r.amount} over ${r.clicks} clicks`).join('; ')}`
      : `Refused: ${String(body?.error ?? res.status)}`)
  })
  return h('div', { class: 'cost-updates' }, form, upload)
}
