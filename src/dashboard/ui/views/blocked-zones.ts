// Blocked zones per source (issue 30, docs/zones.md): the dated list of the zones (sub values) blocked at a
// traffic source, newest first, with its CSV export, "Copy all" in the source's own list format (the source
// template's separator, else one per line), unblocking, and a form to add values by hand. The source is in the
// URL (`#/blocked-zones?source_id=3`), so the list can be bookmarked.
import { all, api, can, type Me } from '../api'
import { field, h, mount } from '../dom'
import { clearErrors, copy, showErrors } from '../forms'
import { writeParams } from '../url-state'

interface Named { id: number; name: string }
interface Zone {
  id: number; source_id: number; campaign_id: number | null; campaign_name: string | null; dimension: string; value: string
  reason: string | null; blocked_at: string; blocked_by: string | null
}
interface Page { items: Zone[]; next_cursor: string | null }
interface ZoneFormat { separator: string; template_id: string | null; note: string }

const DIMENSIONS = ['sub1', 'sub2', 'sub3', 'sub4', 'sub5', 'sub6', 'sub7', 'sub8', 'sub9', 'sub10']
const SEPARATOR_NAME: Record<string, string> = { ',': 'comma', '\n': 'newline', ';': 'semicolon', ' ': 'space' }

/** Every blocked value of a source, in list order, once each: what "Copy all" joins. */
async function allValues(sourceId: number): Promise<string[]> {
  const out = new Set<string>()
  let cursor: string | null = null
  do {
    const page: Page = await api('GET', `/blocked-zones?source_id=${sourceId}&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
    for (const z of page.items) out.add(z.value)
    cursor = page.next_cursor
  } while (cursor)
  return [...out]
}

export async function blockedZonesView(me: Me, params: URLSearchParams): Promise<HTMLElement> {
  const [sources, campaigns] = await Promise.all([all<Named>('/sources'), all<Named & { source_id: number | null }>('/campaigns')])
  const title = h('h1', { id: 'blocked-title' }, 'Blocked zones')
  if (sources.length === 0) {
    return h('section', { 'aria-labelledby': 'blocked-title' }, title, h('p', {}, 'No traffic sources yet: add one under Sources, then keep its blocked zones here.'))
  }
  const wanted = Number(params.get('source_id'))
  let sourceId = sources.some((s) => s.id === wanted) ? wanted : sources[0]!.id
  const writable = can(me, 'campaigns', 'write')

  const picker = h('select', { name: 'source_id', 'data-source-picker': '' }, sources.map((s) => h('option', { value: s.id, selected: s.id === sourceId }, s.name)))
  const exportLink = h('a', { class: 'button', 'data-export': '', download: '' }, 'Export CSV')
  const format = h('p', { class: 'muted', 'data-format': '' })
  const copyButton = h('button', { type: 'button', 'data-copy-all': '' }, 'Copy all')
  const copied = h('textarea', { readonly: true, rows: 3, 'aria-label': 'Copied text', 'data-copy-text': '', hidden: true })
  const status = h('p', { 'aria-live': 'polite', 'data-status': '' })
  const tbody = h('tbody')
  const more = h('button', { type: 'button', hidden: true, 'data-more': '' }, 'Load more')
  let cursor: string | null = null
  let zoneFormat: ZoneFormat = { separator: '\n', template_id: null, note: 'one per line' }

  const row = (z: Zone) => h('tr', { 'data-zone': z.id },
    h('td', {}, h('time', { datetime: z.blocked_at }, new Date(z.blocked_at).toLocaleString())),
    h('td', { 'data-col': 'value' }, z.value),
    h('td', {}, z.dimension),
    h('td', {}, z.campaign_id === null ? 'every campaign' : z.campaign_name ?? `#${z.campaign_id}`),
    h('td', {}, z.reason ?? '—'),
    h('td', {}, z.blocked_by ?? '—'),
    h('td', {}, writable ? h('button', { type: 'button', class: 'small', 'data-unblock': z.id, 'aria-label': `Unblock ${z.value}`, onclick: () => void unblock(z) }, 'Unblock') : null))

  const loadPage = async (first: boolean) => {
    const page = await api<Page>('GET', `/blocked-zones?source_id=${sourceId}&limit=100${!first && cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
    if (first) mount(tbody)
    for (const z of page.items) tbody.append(row(z))
    if (first && page.items.length === 0) mount(tbody, h('tr', {}, h('td', { colspan: 7 }, 'Nothing blocked at this source yet.')))
    cursor = page.next_cursor
    more.hidden = cursor === null
  }
  const load = async () => {
    exportLink.setAttribute('href', `/admin/api/blocked-zones?source_id=${sourceId}&format=csv`)
    campaignOptions()
    copied.hidden = true
    ;[zoneFormat] = await Promise.all([api<ZoneFormat>('GET', `/sources/${sourceId}/zone-format`), loadPage(true)])
    mount(format, `Copy format: ${SEPARATOR_NAME[zoneFormat.separator] ?? 'newline'}-separated (${zoneFormat.note}).`)
  }
  const unblock = async (z: Zone) => {
    try {
      await api('DELETE', `/blocked-zones/${z.id}`)
      await load()
      mount(status, `Unblocked ${z.value}.`)
    } catch (err) {
      // Already unblocked elsewhere (404) or signed out: say so, and show the list as it is now.
      mount(status, `Could not unblock ${z.value}: ${(err as Error).message}`)
      await load().catch(() => {})
    }
  }

  picker.addEventListener('change', () => {
    sourceId = Number(picker.value)
    writeParams(new URLSearchParams({ source_id: String(sourceId) }))
    mount(status)
    void load()
  })
  more.addEventListener('click', () => void loadPage(false))
  copyButton.addEventListener('click', async () => {
    const text = (await allValues(sourceId)).join(zoneFormat.separator)
    copied.value = text
    copied.hidden = false
    await copy(copyButton, text)
  })

  // Values by hand: one per line (the API trims them and drops repeats and values already blocked).
  const values = h('textarea', { name: 'values', rows: 5, required: true, placeholder: 'one value per line' })
  const dimension = h('select', { name: 'dimension' }, DIMENSIONS.map((d) => h('option', { value: d }, d)))
  const campaign = h('select', { name: 'campaign_id' })
  // The source's campaigns (and those without a source): a campaign of another source never gets its traffic.
  const campaignOptions = () => mount(campaign, h('option', { value: '' }, 'every campaign of the source'),
    campaigns.filter((c) => c.source_id === null || c.source_id === sourceId).map((c) => h('option', { value: c.id }, c.name)))
  const reason = h('input', { name: 'reason', maxlength: 500, placeholder: 'e.g. ROI below -50% over 7 days' })
  const form = h('form', { class: 'card', 'aria-labelledby': 'block-form-title', 'data-block-form': '' },
    h('h2', { id: 'block-form-title' }, 'Add blocked values'),
    h('div', { class: 'filters' }, field('Values', values, 'one per line'), field('Dimension', dimension), field('Campaign', campaign), field('Reason', reason)),
    h('p', { class: 'form-error', role: 'alert' }),
    h('button', { type: 'submit' }, 'Block'))
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearErrors(form)
    try {
      const out = await api<{ added: number; kept: number }>('POST', '/blocked-zones', {
        source_id: sourceId, dimension: dimension.value, values: values.value.split(/\r?\n/),
        campaign_id: campaign.value === '' ? null : Number(campaign.value), reason: reason.value.trim() || null,
      })
      values.value = ''
      await load()
      // Said once the list shows them (and what a test waits for).
      mount(status, `Blocked ${out.added} new value${out.added === 1 ? '' : 's'}${out.kept ? `; ${out.kept} already on the list` : ''}.`)
    } catch (err) {
      // "values.3: …" names one line: the message goes beside the textarea.
      const slot = form.querySelector<HTMLElement>('[data-error-for="values"]')
      if (slot && err instanceof Error && /^values(\.\d+)?: /.test(err.message)) slot.textContent = err.message
      else showErrors(form, err)
    }
  })

  await load()
  return h('section', { 'aria-labelledby': 'blocked-title' },
    h('div', { class: 'toolbar' }, title),
    h('div', { class: 'filters' }, field('Source', picker), exportLink, copyButton),
    format, copied, status,
    h('div', { class: 'table-wrap' }, h('table', { 'data-blocked': '', class: 'cards' },
      h('thead', {}, h('tr', {}, ['Date', 'Value', 'Dimension', 'Campaign', 'Reason', 'By', 'Action'].map((c) => h('th', { scope: 'col' }, c)))),
      tbody)),
    more,
    writable ? form : null)
}
