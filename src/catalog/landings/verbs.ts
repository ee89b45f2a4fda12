// Landings: a page between the click and the offer, hosted here (html at /lp/:slug) or elsewhere (url).
import { invalid } from '../../lib/errors'
import { optionalUrlTemplate, requiredText, slug } from '../../lib/fields'
import { crudVerbs, found } from '../../lib/verb-inputs'
import { announce, type CatalogDeps } from '../shared'
import type { LandingValues } from '../store/types'
import { LandingCreate, LandingPatch, MAX_HTML, type LandingInput } from './model'
import { analyzeMacros } from './macro-context'

function html(value: unknown): string | null {
  if (value === null || value === undefined) return null
  if (typeof value !== 'string') throw invalid('html: must be a string or null')
  if (value.length > MAX_HTML) throw invalid(`html: must be at most ${MAX_HTML} characters`)
  if (value.trim() === '') return null
  // A macro where no escaping keeps a visitor's value from becoming markup or script (an event handler, a
  // style, a tag name, where a script is loaded from…) is refused, naming the macro and its place.
  const { problems } = analyzeMacros(value)
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).map((p) => `{${p.macro}} in ${p.context}`).join('; ')
    const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''
    throw invalid(`html: a macro cannot be filled safely there: ${shown}${more}. Macros may stand in text, attribute values, ` +
      'link and image URLs, and script strings')
  }
  return value
}

function fields(input: LandingInput): Partial<LandingValues> {
  const out: Partial<LandingValues> = {}
  if (input.name !== undefined) out.name = requiredText(input.name, 'name')
  if (input.slug !== undefined) out.slug = slug(input.slug)
  if (input.html !== undefined) out.html = html(input.html)
  if (input.url !== undefined) out.url = optionalUrlTemplate(input.url, 'url')
  if (input.email_list_id !== undefined) {
    const v = input.email_list_id
    if (v !== null && (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)) throw invalid('email_list_id: must be a positive integer or null')
    out.emailListId = v
  }
  return out
}

/** A landing is either a hosted page (html) or an external one (url); with neither, /lp/:slug has nothing to serve. */
function needsContent(html: string | null, url: string | null) {
  if (html === null && url === null) throw invalid('html: a landing needs html or url')
}

export function landingVerbs({ store, events }: CatalogDeps) {
  return crudVerbs({
    name: 'catalog.landings', what: 'landing', permissions: { read: 'landings:read', write: 'landings:write' },
    summaries: {
      list: 'List landings', get: 'Get a landing', create: 'Create a landing', update: 'Change a landing',
      delete: 'Delete a landing (conflict while a campaign uses it)',
    },
    inputs: { create: LandingCreate, patch: LandingPatch },
    list: (page) => store.listLandings(page), find: (id) => store.findLanding(id), delete: (id) => store.deleteLanding(id),
    create(input) {
      const f = fields({ ...input, name: input.name ?? '', slug: input.slug ?? '' })
      needsContent(f.html ?? null, f.url ?? null)
      return store.createLanding({ name: f.name!, slug: f.slug!, html: f.html ?? null, url: f.url ?? null, emailListId: f.emailListId ?? null })
    },
    async update(id, input) {
      const f = fields(input)
      // The content rule reads the current row outside the write, as it always has: a concurrent edit can
      // at worst leave a landing without content, which routing skips.
      const current = await found(store.findLanding(id), 'landing')
      needsContent(f.html !== undefined ? f.html : current.html, f.url !== undefined ? f.url : current.url)
      return store.updateLanding(id, f)
    },
    announce: (id, action) => announce(events, 'landing', id, action),
  })
}
