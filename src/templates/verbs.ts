// The template verbs: the registry (built-ins from the code, the operator's own from the database), export and
// import of custom templates, and creating a source or an offer from a template. Source templates are in the
// `sources` resource, network templates in `offers` (agent/scopes.ts); both under the campaigns section.
import { Type as t, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { conflict, invalid, notFound } from '../lib/errors'
import { defineVerb, invoke, type Verb } from '../lib/verb'
import { renderOffer, renderSource } from '../catalog'
import { BUILTIN_NETWORKS } from './networks'
import { BUILTIN_SOURCES } from './sources'
import {
  checkCustomId, checkNetwork, checkSource, DERIVED, NetworkTemplate, REGISTRY_VERSION, renderNetworkTemplate, renderSourceTemplate,
  sourceLinkParams, networkPostbackUrl, SourceTemplate, templateOfSource, zoneFormat, type AnyTemplate, type Kind,
} from './model'
import type { TemplateStore } from './store'

export interface TemplateDeps {
  store: TemplateStore
  /** catalog.sources.create and catalog.offers.create: the templates fill their input, the catalog keeps its rules. */
  createSource: Verb<TSchema, unknown>
  createOffer: Verb<TSchema, unknown>
  /** SVC_PUBLIC_URL (the postback URL's address), when set. */
  publicUrl: string | null
}

export const MAX_IMPORT = 200
/** The address a network's postback URL is built on when neither SVC_PUBLIC_URL nor a request tells it. */
export const UNKNOWN_BASE = 'https://YOUR-SVC-HOST'

const READ = 'campaigns:read' as const
const WRITE = 'campaigns:write' as const
const TemplateId = t.String({ maxLength: 64, description: 'template id (slug)' })
const BaseUrl = t.Optional(t.String({ maxLength: 2048, description: "svc's public address for the postback URL; default SVC_PUBLIC_URL" }))
const ImportInput = t.Object({
  version: t.Optional(t.Integer({ description: 'registry version of the export (informational)' })),
  templates: t.Array(t.Unknown(), { maxItems: MAX_IMPORT, description: `at most ${MAX_IMPORT}; each one is checked, then all are stored or none` }),
})

const SPEC = {
  source: { schema: SourceTemplate, builtins: BUILTIN_SOURCES as readonly AnyTemplate[], check: checkSource as (t: AnyTemplate, f: string) => AnyTemplate, what: 'source template' },
  network: { schema: NetworkTemplate, builtins: BUILTIN_NETWORKS as readonly AnyTemplate[], check: checkNetwork as (t: AnyTemplate, f: string) => AnyTemplate, what: 'network template' },
} as const

/** A template as given, checked: its schema (400 naming templates.N.field), then its rules. */
function parseTemplate(kind: Kind, raw: unknown, field: string): AnyTemplate {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalid(`${field}: must be an object`)
  const body: Record<string, unknown> = { ...(raw as Record<string, unknown>) }
  for (const k of DERIVED[kind]) delete body[k]
  const first = Value.Errors(SPEC[kind].schema, body).First()
  if (first) {
    const path = first.path.replace(/^\//, '').replace(/\//g, '.')
    throw invalid(`${field}${path ? `.${path}` : ''}: ${first.message}`)
  }
  return SPEC[kind].check(body as never, field)
}

/** `url` with `param={click_id}` (an existing `param=` replaced), the fragment kept last. */
export function withClickParam(url: string, param: string): string {
  const hash = url.indexOf('#')
  const main = hash === -1 ? url : url.slice(0, hash)
  const q = main.indexOf('?')
  const kept = q === -1 ? [] : main.slice(q + 1).split('&').filter((p) => p !== '' && p.split('=')[0] !== param)
  return `${q === -1 ? main : main.slice(0, q)}?${[...kept, `${param}={click_id}`].join('&')}${hash === -1 ? '' : url.slice(hash)}`
}

export function templateVerbs(deps: TemplateDeps) {
  const { store } = deps
  const builtinIds = { source: new Set(BUILTIN_SOURCES.map((x) => x.id)), network: new Set(BUILTIN_NETWORKS.map((x) => x.id)) }
  const base = (given: string | undefined) => (given ?? deps.publicUrl ?? UNKNOWN_BASE).replace(/\/+$/, '')

  async function customs(kind: Kind): Promise<AnyTemplate[]> {
    return (await store.list(kind)).map((r) => JSON.parse(r.body) as AnyTemplate)
  }
  async function find(kind: Kind, id: string): Promise<{ tpl: AnyTemplate; builtin: boolean }> {
    const builtin = SPEC[kind].builtins.find((x) => x.id === id)
    if (builtin) return { tpl: builtin, builtin: true }
    const row = await store.get(kind, id)
    if (!row) throw notFound(`${SPEC[kind].what} not found`)
    return { tpl: JSON.parse(row.body) as AnyTemplate, builtin: false }
  }
  const render = (kind: Kind, tpl: AnyTemplate, builtin: boolean, at: string | undefined) => kind === 'source'
    ? renderSourceTemplate(tpl as SourceTemplate, builtin)
    : renderNetworkTemplate(tpl as NetworkTemplate, builtin, base(at))

  /** list, get, export, import and delete of one kind. */
  function registry(kind: Kind, noun: 'source-templates' | 'network-templates', label: string) {
    const name = `templates.${noun}`
    return {
      list: defineVerb({
        name: `${name}.list`, summary: `List ${label} templates: the built-ins (each citing its document), then your own`, permission: READ,
        input: t.Object({ base_url: BaseUrl }),
        async run(_actor, input) {
          const items = [
            ...SPEC[kind].builtins.map((x) => render(kind, x, true, input.base_url)),
            ...(await customs(kind)).map((x) => render(kind, x, false, input.base_url)),
          ]
          return { version: REGISTRY_VERSION, items }
        },
      }),
      get: defineVerb({
        name: `${name}.get`, summary: `Get one ${label} template`, permission: READ,
        input: t.Object({ id: TemplateId, base_url: BaseUrl }),
        async run(_actor, input) {
          const { tpl, builtin } = await find(kind, input.id)
          return render(kind, tpl, builtin, input.base_url)
        },
      }),
      export: defineVerb({
        name: `${name}.export`, summary: `Export your own ${label} templates as JSON (the import format)`, permission: READ,
        input: t.Object({}),
        async run() {
          return { version: REGISTRY_VERSION, templates: await customs(kind) }
        },
      }),
      import: defineVerb({
        name: `${name}.import`,
        summary: `Import ${label} templates (JSON {version, templates}): ids custom-…, an id already imported is replaced; all or none are stored`,
        permission: WRITE,
        input: ImportInput,
        async run(_actor, input) {
          const seen = new Set<string>()
          const checked = input.templates.map((raw, i) => {
            const field = `templates.${i}`
            const tpl = parseTemplate(kind, raw, field)
            checkCustomId(tpl.id, builtinIds[kind], field)
            if (seen.has(tpl.id)) throw invalid(`${field}.id: ${tpl.id} is given twice`)
            seen.add(tpl.id)
            return tpl
          })
          await store.upsert(kind, checked.map((x) => ({ id: x.id, body: JSON.stringify(x) })), Date.now())
          return { version: REGISTRY_VERSION, imported: checked.map((x) => x.id) }
        },
      }),
      delete: defineVerb({
        name: `${name}.delete`, summary: `Delete one of your own ${label} templates (built-ins cannot be deleted: conflict)`, permission: WRITE,
        input: t.Object({ id: TemplateId }),
        async run(_actor, input) {
          if (builtinIds[kind].has(input.id)) throw conflict(`${input.id} is a built-in template and cannot be changed or deleted`)
          if (!(await store.delete(kind, input.id))) throw notFound(`${SPEC[kind].what} not found`)
          return { ok: true as const }
        },
      }),
    }
  }

  const sources = {
    ...registry('source', 'source-templates', 'traffic-source'),
    createSource: defineVerb({
      name: 'templates.source-templates.create-source',
      summary: "Create a traffic source from a template: its postback URL and its tracking-link parameters (link_params)",
      permission: WRITE,
      input: t.Object({ id: TemplateId, name: t.String({ maxLength: 200, description: 'name of the new source' }) }),
      async run(actor, input) {
        const { tpl } = await find('source', input.id)
        const s = tpl as SourceTemplate
        const row = await invoke(deps.createSource, actor, { name: input.name, postback_url: s.postback_url, link_params: sourceLinkParams(s) })
        return renderSource(row as Parameters<typeof renderSource>[0])
      },
    }),
    zoneFormat: defineVerb({
      name: 'templates.source-templates.zone-format',
      summary: "How a source's zone blacklist separates values (comma, newline, semicolon, space): from the template the source was made from, else one per line",
      permission: READ,
      input: t.Object({ source_id: t.Integer({ minimum: 1, description: 'the traffic source' }) }),
      async run(_actor, input) {
        const source = await store.source(input.source_id)
        if (!source) throw notFound('source not found')
        const all = [...BUILTIN_SOURCES, ...(await customs('source'))] as SourceTemplate[]
        return zoneFormat(templateOfSource(source.linkParams, all))
      },
    }),
  }

  const networks = {
    ...registry('network', 'network-templates', 'affiliate-network'),
    createOffer: defineVerb({
      name: 'templates.network-templates.create-offer',
      summary: "Create an offer from a network template: the network's offer link with its click id parameter, and the postback URL to paste into the network",
      permission: WRITE,
      input: t.Object({
        id: TemplateId,
        name: t.String({ maxLength: 200 }),
        slug: t.String({ maxLength: 64 }),
        url: t.String({ maxLength: 4000, description: "the network's offer link (tracking link) as the network gives it" }),
        payout: t.Optional(t.Number()),
        currency: t.Optional(t.String({ maxLength: 3 })),
        base_url: BaseUrl,
      }),
      async run(actor, input) {
        const { tpl } = await find('network', input.id)
        const n = tpl as NetworkTemplate
        const offer = {
          name: input.name, slug: input.slug, url: withClickParam(input.url.trim(), n.click_id_param),
          ...(input.payout === undefined ? {} : { payout: input.payout }), ...(input.currency === undefined ? {} : { currency: input.currency }),
        }
        const row = await invoke(deps.createOffer, actor, offer)
        return { offer: renderOffer(row as Parameters<typeof renderOffer>[0]), postback_url: networkPostbackUrl(n, base(input.base_url)) }
      },
    }),
  }
  return { sources, networks }
}

export type TemplateVerbs = ReturnType<typeof templateVerbs>
