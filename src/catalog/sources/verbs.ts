// Traffic sources: where clicks come from, and the postback URL conversions are forwarded to.
import { optionalUrlTemplate, requiredText } from '../../lib/fields'
import { crudVerbs, found } from '../../lib/verb-inputs'
import { announce, type CatalogDeps } from '../shared'
import type { SourceValues } from '../store/types'
import { SourceCreate, SourcePatch, type SourceInput } from './model'
import { linkParams } from './link-params'

function fields(input: SourceInput): Partial<SourceValues> {
  const out: Partial<SourceValues> = {}
  if (input.name !== undefined) out.name = requiredText(input.name, 'name')
  if (input.postback_url !== undefined) out.postbackUrl = optionalUrlTemplate(input.postback_url, 'postback_url')
  if (input.link_params !== undefined) out.linkParams = linkParams(input.link_params)
  return out
}

export function sourceVerbs({ store, events }: CatalogDeps) {
  return crudVerbs({
    name: 'catalog.sources', what: 'source', permissions: { read: 'campaigns:read', write: 'campaigns:write' },
    summaries: {
      list: 'List traffic sources', get: 'Get a traffic source', create: 'Create a traffic source', update: 'Change a traffic source',
      delete: 'Delete a traffic source (conflict while a campaign uses it)',
    },
    inputs: { create: SourceCreate, patch: SourcePatch },
    list: (page) => store.listSources(page), find: (id) => store.findSource(id), delete: (id) => store.deleteSource(id),
    create(input) {
      const f = fields({ ...input, name: input.name ?? '' })
      return store.createSource({ name: f.name!, postbackUrl: f.postbackUrl ?? null, linkParams: f.linkParams ?? null })
    },
    async update(id, input) {
      // An unknown id answers not_found before the fields are looked at (as it always has).
      await found(store.findSource(id), 'source')
      return store.updateSource(id, fields(input))
    },
    announce: (id, action) => announce(events, 'source', id, action),
  })
}
