// Traffic-source and affiliate-network templates (issue 29, docs/templates.md): their shapes, the checks every
// template passes (built-ins in test/templates/registry.test.ts, imported ones at import) and what a template
// renders to: a source's link parameters, a network's offer-URL suffix and the postback URL to paste into it.
import { Type as t, type Static } from '@sinclair/typebox'
import { conflict, invalid } from '../lib/errors'
import { optionalUrlTemplate } from '../lib/fields'
import { CONVERSION_MACROS, linkParams, SUB_MACROS, unreplacedPlaceholders } from '../catalog'

/** Bumped whenever a built-in entry changes (an export carries it; an import ignores it). */
export const REGISTRY_VERSION = 1

export const SOURCE_CATEGORIES = ['search', 'social', 'native', 'push', 'pop', 'display', 'adult', 'other'] as const
export const ROLES = ['click_id', 'cost', 'zone', 'creative', 'campaign', 'other'] as const

/**
 * One macro of a platform, whole: `{click_id}` `{{ad.id}}` `{{{bidhash}}}` `${SUBID}` `[CLICK_ID]` `[[subid]]`
 * `[[[subid]]]` `[=SID=]` `#s2#` `!!!clickRef!!!` `__CID__`. A value with anything around it is not one.
 */
const TOKENS = [
  /^\{([A-Za-z0-9_.]+)\}$/, /^\{\{([A-Za-z0-9_.]+)\}\}$/, /^\{\{\{([A-Za-z0-9_.]+)\}\}\}$/, /^\$\{([A-Za-z0-9_]+)\}$/,
  /^\[([A-Za-z0-9_]+)\]$/, /^\[\[([A-Za-z0-9_]+)\]\]$/, /^\[\[\[([A-Za-z0-9_]+)\]\]\]$/, /^\[=([A-Za-z0-9_]+)=\]$/,
  /^#([A-Za-z0-9_]+)#$/, /^!!!([A-Za-z0-9_]+)!!!$/, /^__([A-Z0-9_]+)__$/,
]
export const isMacroToken = (s: string): boolean => TOKENS.some((re) => re.test(s))

const Id = t.String({ pattern: '^[a-z0-9][a-z0-9-]{0,63}$', description: 'slug; imported templates: custom-…' })
const DocUrl = t.Union([t.String({ maxLength: 2048, description: 'the public document the macros come from' }), t.Null()])
const Verified = t.Optional(t.Union([t.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'date the document was checked' }), t.Null()]))
const Notes = t.Optional(t.String({ maxLength: 2000 }))

export const SourceParam = t.Object({
  role: t.Union(ROLES.map((r) => t.Literal(r)), { description: 'what the parameter carries' }),
  param: t.String({ maxLength: 64, description: 'parameter name on the tracking link (svc stores it with the click under this name)' }),
  macro: t.Union([t.String({ maxLength: 64 }), t.Null()], { description: "the source's macro for the value; null: the platform appends the parameter itself (gclid)" }),
}, { additionalProperties: false })

/** The separators a traffic source's blacklist box takes (issue 30): what "copy in the source's format" joins with. */
export const ZONE_SEPARATORS = [',', '\n', ';', ' '] as const
export type ZoneSeparator = (typeof ZONE_SEPARATORS)[number]

export const ZoneList = t.Object({
  separator: t.Union(ZONE_SEPARATORS.map((x) => t.Literal(x)), { description: 'what the source\'s zone blacklist box separates values with' }),
  note: t.String({ maxLength: 500, description: 'where the list goes in the source, and the document that says so' }),
}, { additionalProperties: false, description: 'the format of the source\'s zone blacklist; absent: one value per line' })

export const SourceTemplate = t.Object({
  id: Id,
  name: t.String({ minLength: 1, maxLength: 200 }),
  category: t.Union(SOURCE_CATEGORIES.map((c) => t.Literal(c))),
  fills: t.Array(SourceParam, { maxItems: 20, description: 'the tracking-link parameters and the source macros that fill them' }),
  postback_url: t.Union([t.String({ maxLength: 4096 }), t.Null()], {
    description: 'svc postback URL template back to the source ({payout} {status} {tid}… and {param} of a link parameter); null: the source takes no server-to-server postback',
  }),
  doc_url: DocUrl,
  verified: Verified,
  notes: Notes,
  zone_list: t.Optional(ZoneList),
}, { additionalProperties: false })
export type SourceTemplate = Static<typeof SourceTemplate>

/** The /postback parameters a network postback fills (their names as /postback reads them: aliases.ts). */
export const POSTBACK_PARAMS = ['click_id', 'payout', 'status', 'tid'] as const
const NetworkMacro = (what: string) => t.String({ maxLength: 64, description: `the network's macro for ${what}` })

export const NetworkTemplate = t.Object({
  id: Id,
  name: t.String({ minLength: 1, maxLength: 200 }),
  platform: t.String({ pattern: '^[a-z0-9][a-z0-9-]{0,63}$', description: 'the tracking platform the network runs on (cake, tune, everflow, affise, linktrust, own…)' }),
  click_id_param: t.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', description: "the network's sub parameter of the offer URL that carries svc's click id" }),
  postback: t.Object({
    click_id: NetworkMacro('the sub parameter it returns'),
    payout: t.Optional(NetworkMacro('the payout')),
    status: t.Optional(NetworkMacro('the status')),
    tid: t.Optional(NetworkMacro('its transaction id')),
  }, { additionalProperties: false }),
  doc_url: DocUrl,
  verified: Verified,
  notes: Notes,
}, { additionalProperties: false })
export type NetworkTemplate = Static<typeof NetworkTemplate>

export type Kind = 'source' | 'network'
export type AnyTemplate = SourceTemplate | NetworkTemplate

/** What a source template puts on the tracking link: `param=macro&…` (parameters the platform appends left out). */
export const sourceLinkParams = (tpl: SourceTemplate): string | null =>
  tpl.fills.some((f) => f.macro !== null) ? tpl.fills.filter((f) => f.macro !== null).map((f) => `${f.param}=${f.macro}`).join('&') : null

/** `s2={click_id}`: what an offer URL of the network gets appended. */
export const networkSuffix = (tpl: NetworkTemplate): string => `${tpl.click_id_param}={click_id}`

/** The postback URL to paste into the network: svc's /postback with the network's macros (parameter names from aliases.ts). */
export function networkPostbackUrl(tpl: NetworkTemplate, base: string): string {
  const query = POSTBACK_PARAMS.flatMap((p) => (tpl.postback[p] ? [`${p}=${tpl.postback[p]}`] : [])).join('&')
  return `${base.replace(/\/+$/, '')}/postback?${query}`
}

/** The placeholders of a source postback URL that are neither svc macros nor the template's link parameters. */
export function strayPostbackMacros(tpl: SourceTemplate): string[] {
  if (!tpl.postback_url) return []
  const known = new Set<string>([...CONVERSION_MACROS, ...SUB_MACROS, ...tpl.fills.map((f) => f.param)])
  return unreplacedPlaceholders(tpl.postback_url).filter((p) => !(p.startsWith('{') && known.has(p.slice(1, -1))))
}

/**
 * The rules every template keeps beyond its schema (`field` names it: templates.3): link parameters svc can
 * store and read back, one click id, one macro per value, a postback URL that only uses what it declares.
 */
export function checkSource(tpl: SourceTemplate, field: string): SourceTemplate {
  const derived = tpl.fills.map((f) => `${f.param}=${f.macro ?? 'x'}`).join('&')
  if (tpl.fills.length) linkParams(derived, `${field}.fills`)
  tpl.fills.forEach((f, i) => {
    if (f.macro !== null && !isMacroToken(f.macro)) throw invalid(`${field}.fills.${i}.macro: "${f.macro}" is not one macro of the source ({x} ${'${X}'} [X] {{x}} __X__ …)`)
  })
  if (tpl.fills.filter((f) => f.role === 'click_id').length > 1) throw invalid(`${field}.fills: at most one parameter has the role click_id`)
  if (tpl.postback_url !== null) {
    optionalUrlTemplate(tpl.postback_url, `${field}.postback_url`)
    const stray = strayPostbackMacros(tpl)
    if (stray.length) throw invalid(`${field}.postback_url: ${stray.join(', ')} is neither a svc macro nor a link parameter of the template`)
  }
  checkDoc(tpl.doc_url, field)
  return { ...tpl, notes: tpl.notes ?? '', verified: tpl.verified ?? null }
}

export function checkNetwork(tpl: NetworkTemplate, field: string): NetworkTemplate {
  for (const p of POSTBACK_PARAMS) {
    const m = tpl.postback[p]
    if (m !== undefined && !isMacroToken(m)) throw invalid(`${field}.postback.${p}: "${m}" is not one macro of the network ({x} #x# [=X=] !!!x!!! …)`)
  }
  checkDoc(tpl.doc_url, field)
  return { ...tpl, notes: tpl.notes ?? '', verified: tpl.verified ?? null }
}

function checkDoc(url: string | null, field: string): void {
  if (url === null) return
  const u = URL.parse(url)
  if (!u || (u.protocol !== 'https:' && u.protocol !== 'http:')) throw invalid(`${field}.doc_url: must be an absolute http(s) URL or null`)
}

/** An imported template's id: never a built-in's (409), always `custom-…` (so a later built-in cannot take it). */
export function checkCustomId(id: string, builtins: ReadonlySet<string>, field: string): void {
  if (builtins.has(id)) throw conflict(`${field}.id: ${id} is a built-in template; custom templates are named custom-…`)
  if (!id.startsWith('custom-')) throw invalid(`${field}.id: custom template ids start with custom- (custom-${id})`)
}

/** Fields a template shows but is not made of: an exported or shown template may be imported back as it is. */
export const DERIVED: Record<Kind, readonly string[]> = { source: ['builtin', 'link_params'], network: ['builtin', 'suffix', 'postback_url'] }

export const SourceTemplateRecord = t.Composite([SourceTemplate, t.Object({
  builtin: t.Boolean({ description: 'shipped with svc (read-only); false: imported' }),
  link_params: t.Union([t.String(), t.Null()], { description: 'the query string a source created from the template puts on its tracking link' }),
})])
export const NetworkTemplateRecord = t.Composite([NetworkTemplate, t.Object({
  builtin: t.Boolean({ description: 'shipped with svc (read-only); false: imported' }),
  suffix: t.String({ description: "what an offer URL of the network gets appended: its sub parameter with svc's {click_id}" }),
  postback_url: t.String({ description: "the postback URL to paste into the network: svc's /postback with the network's macros" }),
})])

export const renderSourceTemplate = (tpl: SourceTemplate, builtin: boolean): Static<typeof SourceTemplateRecord> =>
  ({ ...tpl, notes: tpl.notes ?? '', verified: tpl.verified ?? null, builtin, link_params: sourceLinkParams(tpl) })
export const renderNetworkTemplate = (tpl: NetworkTemplate, builtin: boolean, base: string): Static<typeof NetworkTemplateRecord> =>
  ({ ...tpl, notes: tpl.notes ?? '', verified: tpl.verified ?? null, builtin, suffix: networkSuffix(tpl), postback_url: networkPostbackUrl(tpl, base) })

/** What "copy in the source's format" joins values with: the template's own list format, else one per line. */
export interface ZoneFormat { separator: ZoneSeparator; template_id: string | null; note: string }

export const DEFAULT_ZONE_NOTE = 'one per line'

export function zoneFormat(tpl: SourceTemplate | null): ZoneFormat {
  if (!tpl) return { separator: '\n', template_id: null, note: DEFAULT_ZONE_NOTE }
  if (!tpl.zone_list) return { separator: '\n', template_id: tpl.id, note: `${DEFAULT_ZONE_NOTE} (the ${tpl.name} template gives no list format)` }
  return { separator: tpl.zone_list.separator, template_id: tpl.id, note: tpl.zone_list.note }
}

/**
 * The template a source was made from, read back from its link parameters (a source does not store a template
 * id): the template whose link_params are exactly the source's, else the one template whose zone parameter and
 * macro (`zone={zoneid}`: the macro is the platform's own syntax) the source carries. Two candidates, or none:
 * null (no guess).
 */
export function templateOfSource(linkParams: string | null, templates: readonly SourceTemplate[]): SourceTemplate | null {
  if (!linkParams) return null
  const exact = templates.filter((x) => sourceLinkParams(x) === linkParams)
  if (exact.length === 1) return exact[0]!
  if (exact.length > 1) return null
  const pairs = new Set(linkParams.split('&'))
  const byZone = templates.filter((x) => x.fills.some((f) => f.role === 'zone' && f.macro !== null && pairs.has(`${f.param}=${f.macro}`)))
  return byZone.length === 1 ? byZone[0]! : null
}
