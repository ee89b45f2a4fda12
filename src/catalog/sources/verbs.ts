// Traffic sources: where clicks come from, and the postback URL conversions are forwarded to.
import { defineVerb } from '../../lib/verb'
import { optionalUrlTemplate, requiredText } from '../../lib/fields'
import { announce, found, IdInput, listPage, PageInput, withId, type CatalogDeps } from '../shared'
import type { SourceValues } from '../store/types'
import { SourceCreate, SourcePatch, type SourceInput } from './model'

function fields(input: SourceInput): Partial<SourceValues> {
  const out: Partial<SourceValues> = {}
  if (input.name !== undefined) out.name = requiredText(input.name, 'name')
  if (input.postback_url !== undefined) out.postbackUrl = optionalUrlTemplate(input.postback_url, 'postback_url')
  return out
}

export function sourceVerbs({ store, events }: CatalogDeps) {
  return {
    list: defineVerb({
      name: 'catalog.sources.list', summary: 'List traffic sources', permission: 'campaigns:read', input: PageInput,
      run: (_actor, input) => listPage(input, (page) => store.listSources(page)),
    }),
    get: defineVerb({
      name: 'catalog.sources.get', summary: 'Get a traffic source', permission: 'campaigns:read', input: IdInput,
      run: (_actor, { id }) => found(store.findSource(id), 'source'),
    }),
    create: defineVerb({
      name: 'catalog.sources.create', summary: 'Create a traffic source', permission: 'campaigns:write', input: SourceCreate,
      async run(_actor, input) {
        const f = fields({ ...input, name: input.name ?? '' })
        const row = await store.createSource({ name: f.name!, postbackUrl: f.postbackUrl ?? null })
        announce(events, 'source', row.id, 'created')
        return row
      },
    }),
    update: defineVerb({
      name: 'catalog.sources.update', summary: 'Change a traffic source', permission: 'campaigns:write', input: withId(SourcePatch),
      async run(_actor, { id, ...input }) {
        // An unknown id answers not_found before the fields are looked at (as it always has).
        await found(store.findSource(id), 'source')
        const row = await store.updateSource(id, fields(input))
        announce(events, 'source', id, 'updated')
        return row
      },
    }),
    delete: defineVerb({
      name: 'catalog.sources.delete', summary: 'Delete a traffic source (conflict while a campaign uses it)', permission: 'campaigns:write', input: IdInput,
      async run(_actor, { id }) {
        await store.deleteSource(id)
        announce(events, 'source', id, 'deleted')
        return { ok: true as const }
      },
    }),
  }
}
