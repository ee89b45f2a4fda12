// Every verb as an MCP tool: its name, the description an agent reads, scope, bucket (default or ai), tier
// (2 = confirm first), input and output schemas and annotations. Tools hold no logic: a call is invoke()
// on the verb, through the same permission (scope) and schema checks as REST.
import type { TSchema } from '@sinclair/typebox'
import { invalid } from '../../lib/errors'
import { viewOf, type Verb } from '../../lib/verb'
import { scopeOfVerb, type Scope } from '../scopes'
import { SETTINGS } from '../../settings'

export type Bucket = 'default' | 'ai'
type Json = Record<string, unknown>

export interface Tool {
  name: string
  verb: Verb
  scope: Scope
  bucket: Bucket
  /** Tier 2: whether these arguments need a confirmed second call. */
  tier2: (args: Json) => boolean
  /** Verb answering the preview of a Tier-2 call (its input built from the call's arguments). */
  preview?: { verb: string; input: (args: Json) => Json }
  description: string
  inputSchema: Json
  outputSchema: Json
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean }
  /** Tool arguments → verb input (default: the same object). */
  toInput: (args: Json) => Json
  /** Verb result → structuredContent (an object). */
  toOutput: (result: unknown) => Promise<Json>
}

/** Verbs that are not agent tools: public ones whose permission is a signed link. */
const NOT_TOOLS = new Set(['email.unsubscribe'])

/** Expensive calls: long reports, exports, imports, sends. */
const AI_BUCKET = new Set([
  'reports.run', 'reports.export-conversions', 'landings.events.counts', 'landings.leads.export', 'email.subscribers.export',
  'email.subscribers.import', 'email.broadcasts.send', 'clicks.export',
])

/** Tool names an agent would guess, where the rule below would read badly. */
const NAMES: Record<string, string> = {
  'reports.run': 'get_report',
  'reports.export-conversions': 'export_conversions',
  'clicks.get': 'get_click',
  'clicks.export': 'export_clicks',
  'clicks.timeline': 'get_click_timeline',
  'caps.list': 'list_caps',
  'conversions.record': 'record_conversion',
  'postback-errors.list': 'list_postback_errors',
  'postback-aliases.get': 'get_postback_aliases',
  'postback-aliases.replace': 'replace_postback_aliases',
  'status-map.get': 'get_status_map',
  'status-map.replace': 'replace_status_map',
  'settings.get': 'get_settings',
  'settings.update': 'update_settings',
  'tokens.scopes': 'list_scopes',
  'templates.source-templates.export': 'export_source_templates',
  'templates.source-templates.import': 'import_source_templates',
  'templates.source-templates.create-source': 'create_source_from_template',
  'templates.network-templates.export': 'export_network_templates',
  'templates.network-templates.import': 'import_network_templates',
  'templates.network-templates.create-offer': 'create_offer_from_template',
  'audit.list': 'list_audit',
  'email.lists.list': 'list_email_lists',
  'email.lists.get': 'get_email_list',
  'email.lists.create': 'create_email_list',
  'email.lists.update': 'update_email_list',
  'email.lists.delete': 'delete_email_list',
  'email.subscribers.restart-by-email': 'restart_automations_by_email',
  'email.subscribers.restart': 'restart_automations',
  'email.subscribers.export': 'export_subscribers',
  'email.subscribers.import': 'import_subscribers',
  'email.broadcasts.send': 'send_broadcast',
  'email.outbox.list': 'list_outbox',
  'email.purchases.enroll': 'enroll_buyer',
  'email.mail-events.list': 'list_mail_events',
  'email.triggers.list': 'list_email_triggers',
  'email.triggers.get': 'get_email_trigger',
  'email.triggers.create': 'create_email_trigger',
  'email.triggers.update': 'update_email_trigger',
  'email.triggers.delete': 'delete_email_trigger',
  'email.automations.list': 'list_email_automations',
  'email.automations.get': 'get_email_automation',
  'email.automations.create': 'create_email_automation',
  'email.automations.update': 'update_email_automation',
  'email.automations.delete': 'delete_email_automation',
  'landings.events.list': 'list_visitor_events',
  'landings.events.counts': 'count_visitor_events',
  'landings.leads.export': 'export_leads',
  'landings.assets.put': 'put_landing_asset',
  'landings.assets.get': 'get_landing_asset',
  'landings.assets.list': 'list_landing_assets',
  'landings.assets.delete': 'delete_landing_asset',
  'commerce.orders.refund': 'refund_order',
  'cost-updates.create': 'update_costs',
  'cost-updates.import': 'import_costs',
  'cost-updates.list': 'list_cost_updates',
  'commerce.orders.resend-automation': 'resend_order_automation',
  'campaigns.split_test': 'get_split_test',
  'campaigns.auto_weights.get': 'get_auto_weights',
  'campaigns.auto_weights.update': 'update_auto_weights',
  'campaigns.weight_changes.list': 'list_weight_changes',
  'blocked-zones.add': 'add_blocked_zones',
  'blocked-zones.export': 'export_blocked_zones',
  'templates.source-templates.zone-format': 'get_source_zone_format',
}

const singular = (noun: string) => noun.replace(/ies$/, 'y').replace(/(ses|xes)$/, (m) => m.slice(0, -2)).replace(/s$/, '')

/** "catalog.campaigns.create" → create_campaign; "commerce.orders.list" → list_orders. */
export function toolName(verbName: string): string {
  if (NAMES[verbName]) return NAMES[verbName]
  const parts = verbName.split('.')
  const action = parts[parts.length - 1]!
  const noun = parts[parts.length - 2]!.replace(/-/g, '_')
  return `${action.replace(/-/g, '_')}_${action === 'list' ? noun : singular(noun)}`
}

/** What an agent should know beyond the verb's summary: when to use it and what it does not do. */
const HINTS: Record<string, string> = {
  'reports.run': 'Use for any performance question (clicks, conversions, revenue, cost, profit, ROI, EPC, CR) grouped by one to three dimensions over a date range; filters narrow to a campaign, source, offer or landing; min_clicks and having (profit<0,clicks>=100) keep only the top-level rows that meet them. Without tz, days are in the time_zone setting. Money is never converted: `currency` names the one currency of revenue and cost; when a range holds several, currency is null, `currencies` lists them, revenue/profit/epc/roi are null and each row\'s `money` gives them per currency (group_by=currency splits rows by currency; sort=revenue.EUR sorts by one). For single conversions use list_conversions instead.',
  'conversions.record': 'Use only when you hold real conversion data for a click (e.g. from an advertiser report): it books money, fires the forward postback to the traffic source and email triggers exactly as GET /postback would. It does not change an existing conversion.',
  'conversions.list': 'Use to inspect individual conversions (filters click_id, campaign_id, type, from, to). For totals use get_report. revenue is the payout as received: a conversion of a negative type (chargeback) counts as minus its amount, whatever its sign.',
  'commerce.orders.list': 'Order status: paid, failed (the payment failed; it becomes paid if a retry succeeds), pending, partially_refunded, refunded, cancelled, fulfilled, or the status the store platform sent.',
  'clicks.get': 'Use to inspect one click by its click_id (UUID): campaign, source, offer, landing, device, sub ids, bot flag.',
  'clicks.timeline': 'Use to follow one click end to end (why a conversion is missing or was not counted by the source): landing view, click-through, each postback with its raw query, status changes, and each forward to the traffic source with its HTTP result, latency and error.',
  'clicks.list': 'Use to find clicks (newest first) of a campaign, source, offer, landing, sub value, country or device in a date range, then get_click_timeline for one. For counts use get_report.',
  'clicks.export': 'Use for many clicks at once (one campaign, a date range) with their geo, network and device fields; cap it with limit. For counts use get_report; for one click get_click.',
  'catalog.campaigns.create': 'A campaign joins a traffic source to offers (and optionally landings) in weighted rotation; its tracking link is /c/<slug>.',
  'catalog.campaigns.update': 'Pass only the fields to change; a given offers or landings rotation replaces the old one. To pause a campaign set active=false rather than deleting it.',
  'jobs.retry': 'Use for a failed job (e.g. a forward postback that the source rejected) once its cause is fixed.',
  'settings.update': 'Pass only the keys to change. Secret keys are write-only (get_settings shows them masked).',
  'email.broadcasts.send': 'Queues one message per active subscriber of the list: real mail goes out. Check the list with get_email_list first.',
  'commerce.orders.refund': 'Marks the order refunded in svc and books a negative conversion; it moves no money at the payment processor.',
  'tokens.create': 'The new token is in this answer only. A token can grant only scopes both it and the user who created it hold.',
  'tokens.update': 'A token can change only itself and the tokens it created, and grant only scopes both it and the user who created it hold.',
  'tokens.delete': 'A token can revoke only itself and the tokens it created.',
  'users.create': 'A token can grant only section permissions both its scopes (every resource of the section) and the user who created it hold; never owner.',
  'users.update': 'Nobody changes their own permissions or owner flag; a token manages only users within what both it and its creator hold, never an owner.',
}

/** Settings keys whose change is a secret change (Tier 2). */
const SECRET_SETTING_KEYS: ReadonlySet<string> = new Set(Object.entries(SETTINGS).filter(([, def]) => def.secret).map(([key]) => key))
const touchesSecret = (args: Json) => Object.keys(args).some((k) => SECRET_SETTING_KEYS.has(k))
const SECRET_FIELDS = ['password', 'webhook_secret', 'api_key', 'client_id', 'client_secret']

/** Who may hold which rights: every change of users, their permissions and tokens (README "Who may grant what"). */
const GRANTS = new Set(['users.create', 'users.update', 'users.delete', 'tokens.create', 'tokens.update', 'tokens.delete'])

/** Tier 2: deletions, secret changes, refunds, bulk sends, user, permission and token changes. */
export function tier2Of(verbName: string): (args: Json) => boolean {
  if (/\.(delete|remove)$/.test(verbName) || GRANTS.has(verbName)) return () => true
  if (verbName === 'commerce.orders.refund' || verbName === 'email.broadcasts.send') return () => true
  if (verbName === 'settings.update') return touchesSecret
  if (verbName === 'users.update' || verbName === 'commerce.payment-accounts.update') return (args) => SECRET_FIELDS.some((f) => args[f] !== undefined)
  return () => false
}

/** The record a Tier-2 call would act on, through the matching read verb. */
function previewOf(verbName: string, verbs: ReadonlyMap<string, Verb>): Tool['preview'] {
  const pick = (...keys: string[]) => (args: Json) => Object.fromEntries(keys.filter((k) => args[k] !== undefined).map((k) => [k, args[k]]))
  if (verbName === 'email.subscribers.remove') return { verb: 'email.subscribers.get', input: pick('id', 'subscriber_id') }
  if (verbName === 'commerce.orders.refund') return { verb: 'commerce.orders.get', input: pick('id') }
  if (verbName === 'email.broadcasts.send') return { verb: 'email.lists.get', input: pick('id') }
  if (verbName === 'landings.assets.delete') return undefined
  if (verbName === 'conversion-types.delete') return { verb: 'conversion-types.get', input: pick('slug') }
  const get = verbName.replace(/\.(delete|update)$/, '.get')
  if (get !== verbName && verbs.has(get)) return { verb: get, input: pick('id') }
  return undefined
}

/** JSON Schema of a TypeBox schema, without TypeBox's symbol keys. */
const plain = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema)) as Json

/** Input schemas of verbs whose TypeBox input is free-form (checked by the verb itself). */
const FREE_FORM: Record<string, Json> = {
  'settings.update': { type: 'object', description: 'The settings to change, by key (see get_settings for the keys and current values).', additionalProperties: true },
  'status-map.replace': { type: 'object', description: 'The whole map: received postback status → conversion type slug.', additionalProperties: { type: 'string' } },
  'postback-aliases.replace': { type: 'object', description: 'Parameter → list of query-string names (null restores the default).', additionalProperties: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] } },
}

const PAGE_OUTPUT: Json = {
  type: 'object',
  properties: { items: { type: 'array', items: { type: 'object' } }, next_cursor: { type: ['string', 'null'] } },
  required: ['items', 'next_cursor'],
}
const RECORD_OUTPUT: Json = { type: 'object', additionalProperties: true }
const CSV_OUTPUT: Json = { type: 'object', properties: { csv: { type: 'string' }, file_name: { type: 'string' } }, required: ['csv'] }
const ASSET_OUTPUT: Json = { type: 'object', properties: { asset: { type: 'object' }, body_base64: { type: 'string' } }, required: ['asset', 'body_base64'] }

/** An export answered in one tool result is capped: past this, narrow the filters or use the REST export. */
export const MAX_CSV_CHARS = 4 * 1024 * 1024
const tooLarge = () => invalid(`export larger than ${MAX_CSV_CHARS} characters: narrow the filters, or use the REST export (a streamed file)`)

/** A CSV export as one string: a pull function (leads, subscribers) or a streamed file (reports). */
async function csvText(result: unknown): Promise<{ csv: string; file_name?: string } | null> {
  if (typeof result === 'string') return { csv: result }
  if (typeof result === 'function') {
    let csv = ''
    for (let block = await (result as () => Promise<string | null>)(); block !== null; block = await (result as () => Promise<string | null>)()) {
      csv += block
      if (csv.length > MAX_CSV_CHARS) throw tooLarge()
    }
    return { csv }
  }
  const file = result as { name?: unknown; body?: unknown }
  if (file && typeof file === 'object' && file.body instanceof ReadableStream) {
    let csv = ''
    const decoder = new TextDecoder()
    for await (const chunk of file.body as ReadableStream<Uint8Array>) {
      csv += decoder.decode(chunk, { stream: true })
      if (csv.length > MAX_CSV_CHARS) { await (file.body as ReadableStream).cancel().catch(() => {}); throw tooLarge() }
    }
    return { csv: csv + decoder.decode(), file_name: String(file.name) }
  }
  return null
}

/** structuredContent is an object: a CSV export goes under `csv`, anything else not an object under `result`. */
async function objectOf(result: unknown): Promise<Json> {
  const csv = await csvText(result)
  if (csv) return csv
  if (result !== null && typeof result === 'object' && !Array.isArray(result)) return result as Json
  return { result }
}

function build(verb: Verb, verbs: ReadonlyMap<string, Verb>): Tool {
  const scope = scopeOfVerb(verb)
  if (!scope) throw new Error(`verb ${verb.name} belongs to no agent resource (agent/scopes.ts)`)
  const action = verb.name.split('.').pop()!
  const readOnly = scope.endsWith(':read')
  const tier2 = tier2Of(verb.name)
  const isList = action === 'list' || verb.name === 'tokens.scopes'
  const isExport = /\.export(-conversions)?$/.test(verb.name)
  let inputSchema = FREE_FORM[verb.name] ?? plain(verb.input)
  let toInput = (args: Json) => args
  let toOutput = (result: unknown) => objectOf(viewOf(verb, result))
  let outputSchema = isList ? PAGE_OUTPUT : isExport ? CSV_OUTPUT : RECORD_OUTPUT
  if (verb.name === 'landings.assets.put') {
    // Binary over JSON: the file travels base64-encoded.
    const props = { ...(inputSchema.properties as Json) }
    delete props.body
    props.body_base64 = { type: 'string', description: 'the file, base64-encoded' }
    inputSchema = { ...inputSchema, properties: props, required: ['id', 'path', 'body_base64'] }
    toInput = ({ body_base64, ...rest }) => ({ ...rest, body: new Uint8Array(Buffer.from(String(body_base64 ?? ''), 'base64')) })
  }
  if (verb.name === 'landings.assets.get') {
    outputSchema = ASSET_OUTPUT
    toOutput = async (r) => {
      const { asset, body } = r as { asset: Json; body: Uint8Array }
      return { asset, body_base64: Buffer.from(body).toString('base64') }
    }
  }
  // Whether some arguments of this tool need confirming (every secret-bearing argument set at once).
  const mayConfirm = tier2(Object.fromEntries([...SECRET_FIELDS, ...SECRET_SETTING_KEYS].map((k) => [k, 1])))
  if (mayConfirm) {
    const props = { ...((inputSchema.properties as Json | undefined) ?? {}) }
    props.confirm_token = { type: 'string', description: 'from the preview answer of the first call; pass it with the same arguments to act' }
    inputSchema = { ...inputSchema, type: 'object', properties: props }
  }
  const notes = [
    HINTS[verb.name],
    isList ? 'Paged: pass next_cursor back as cursor for the next page (limit up to 500).' : null,
    mayConfirm ? 'Tier 2: the first call acts on nothing; it answers a preview and a confirm_token (valid 5 minutes). Call again with the same arguments plus confirm_token to act; repeating that confirmed call returns the first result and acts once.' : null,
    `Scope ${scope}; rate bucket ${AI_BUCKET.has(verb.name) ? 'ai' : 'default'}.`,
  ].filter(Boolean)
  const title = verb.summary.split(/[(:;]/)[0]!.trim()
  return {
    name: toolName(verb.name),
    verb,
    scope,
    bucket: AI_BUCKET.has(verb.name) ? 'ai' : 'default',
    tier2,
    preview: mayConfirm ? previewOf(verb.name, verbs) : undefined,
    description: `${verb.summary}. ${notes.join(' ')}`,
    inputSchema: { type: 'object', ...inputSchema },
    outputSchema,
    annotations: {
      title,
      readOnlyHint: readOnly,
      destructiveHint: !readOnly && mayConfirm,
      // Replacing a whole thing, deleting and setting are idempotent; creating and sending are not.
      idempotentHint: readOnly || /\.(update|replace|delete|remove|cancel|put)$/.test(verb.name),
      openWorldHint: verb.name === 'email.broadcasts.send' || verb.name === 'conversions.record',
    },
    toInput,
    toOutput,
  }
}

/** The tool catalog over every verb, by tool name (names checked unique). */
export function toolCatalog(verbs: ReadonlyMap<string, Verb>): ReadonlyMap<string, Tool> {
  const tools = new Map<string, Tool>()
  for (const verb of verbs.values()) {
    if (NOT_TOOLS.has(verb.name)) continue
    const tool = build(verb, verbs)
    if (tools.has(tool.name)) throw new Error(`tool name ${tool.name} is used twice (${tools.get(tool.name)!.verb.name}, ${verb.name})`)
    tools.set(tool.name, tool)
  }
  return tools
}
