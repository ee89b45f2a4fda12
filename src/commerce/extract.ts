// Where a click id hides in a store's order (spec §4): pure functions over the parsed payload, each
// source tried in the spec's order, the first that yields a valid click id (a UUID) winning.
import { normalizeClickId } from '../lib/click-id'

export type ClickSource = 'note_attributes' | 'landing_site' | 'referring_site' | 'tags' | 'customer_note' | 'meta_data'
export interface FoundClick {
  clickId: string
  from: ClickSource
}

const URL_PARAMS = ['_svc_click', 'click_id', 'ref'] as const
const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}'
/** `_svc_click:<uuid>`, `svc_click=<uuid>`, `svc:<uuid>` or a bare UUID as a whole tag. */
const TAG = new RegExp(`^(?:(?:_?svc_click|svc)\\s*[:=]\\s*)?(${UUID})$`, 'i')
/** In free text (a customer note): the UUID after `_svc_click`, else the first UUID v4. */
const NOTE_LABELLED = new RegExp(`_svc_click\\s*[:=]?\\s*(${UUID})`, 'i')
const NOTE_BARE = new RegExp(UUID, 'g')

const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null)

/** The value of the first `{<nameKey>: name, <valueKey>: …}` entry named `name` in an array. */
function entry(list: unknown, nameKey: string, valueKey: string, name: string): string | null {
  if (!Array.isArray(list)) return null
  for (const e of list) {
    if (e && typeof e === 'object' && (e as Record<string, unknown>)[nameKey] === name) return str((e as Record<string, unknown>)[valueKey])
  }
  return null
}

/** The first of `_svc_click`, `click_id`, `ref` in a URL's query that is a click id (relative URLs too). */
function fromUrl(raw: unknown): string | null {
  const s = str(raw)
  if (!s) return null
  const url = URL.parse(s, 'http://relative.invalid/')
  if (!url) return null
  for (const p of URL_PARAMS) {
    const id = normalizeClickId(url.searchParams.get(p))
    if (id) return id
  }
  return null
}

function fromTags(raw: unknown): string | null {
  const tags = Array.isArray(raw) ? raw.map(str) : (str(raw) ?? '').split(',')
  for (const t of tags) {
    const m = t ? TAG.exec(t.trim()) : null
    const id = m ? normalizeClickId(m[1]!) : null
    if (id) return id
  }
  return null
}

/** ecom-a: note_attributes `_svc_click`, then landing_site, then referring_site parameters, then tags. */
export function ecomAClick(order: Record<string, unknown>): FoundClick | null {
  const note = normalizeClickId(entry(order.note_attributes, 'name', 'value', '_svc_click'))
  if (note) return { clickId: note, from: 'note_attributes' }
  const landing = fromUrl(order.landing_site)
  if (landing) return { clickId: landing, from: 'landing_site' }
  const referring = fromUrl(order.referring_site)
  if (referring) return { clickId: referring, from: 'referring_site' }
  const tag = fromTags(order.tags)
  return tag ? { clickId: tag, from: 'tags' } : null
}

/** ecom-b: customer_note (`_svc_click=<id>`, else the first UUID in it), then meta_data `_svc_click`. */
export function ecomBClick(order: Record<string, unknown>): FoundClick | null {
  const note = str(order.customer_note)
  if (note) {
    const labelled = NOTE_LABELLED.exec(note)
    const id = labelled ? normalizeClickId(labelled[1]!) : [...note.matchAll(NOTE_BARE)].map((m) => normalizeClickId(m[0])).find(Boolean)
    if (id) return { clickId: id, from: 'customer_note' }
  }
  const meta = normalizeClickId(entry(order.meta_data, 'key', 'value', '_svc_click'))
  return meta ? { clickId: meta, from: 'meta_data' } : null
}
