// A verb is one action of the product (create a campaign, record a conversion, change settings…) that every
// surface shares: the REST routes today, the MCP tools, the CLI and the dashboard tomorrow. A surface
// parses its own input format, calls invoke(), and shapes the answer; the verb holds the rules and the
// side effects (through domain events), so no surface can skip them.
import type { Static, TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { can, type AdminUser, type PermissionRef, type Section, type Action } from './permissions'
import { forbidden, invalid } from './errors'

/** Who is acting: a signed-in admin, or the system itself (start-up, CLI run by the operator, jobs). */
export type Actor = { kind: 'admin'; user: AdminUser } | { kind: 'system'; name: string }

export const adminActor = (user: AdminUser): Actor => ({ kind: 'admin', user })
export const systemActor = (name: string): Actor => ({ kind: 'system', name })

export interface Verb<I extends TSchema = TSchema, O = unknown> {
  /** Stable dotted name, e.g. "catalog.campaigns.create" (the MCP tool name derives from it). */
  name: string
  summary: string
  /** Section permission an admin needs (the MCP scope maps onto it later); null: anyone may call it. */
  permission: PermissionRef | null
  /** TypeBox schema of the input; checked by invoke() for every surface. */
  input: I
  run(actor: Actor, input: Static<I>): Promise<O>
  /**
   * The public shape of what the verb returns, when run() returns stored rows (for a page: of each item).
   * The REST routes shape their answers themselves; other surfaces (MCP) apply this, so both show the same.
   */
  view?: (record: never) => unknown
}

export const defineVerb = <I extends TSchema, O>(verb: Verb<I, O>): Verb<I, O> => verb

/** Declares the public shape of the records these verbs return (see Verb.view). */
export function shapedBy<R>(render: (record: R) => unknown, ...verbs: Verb<TSchema, unknown>[]): void {
  for (const verb of verbs) verb.view = render as (record: never) => unknown
}

/** A verb's result in its public shape: a page's items one by one, anything else whole. */
export function viewOf(verb: Verb<TSchema, unknown>, result: unknown): unknown {
  if (!verb.view) return result
  const page = result as { items?: unknown }
  if (page && typeof page === 'object' && Array.isArray(page.items)) return { ...page, items: page.items.map((r) => verb.view!(r as never)) }
  return verb.view(result as never)
}

/** A list of verbs by name: what a feature offers to every surface. */
export type VerbSet = Record<string, Verb<TSchema, unknown>>

function checkPermission(verb: Verb<TSchema, unknown>, actor: Actor): void {
  if (actor.kind === 'system') return
  // An agent token: the scope of the verb's resource decides, for permission-less verbs (jobs) too.
  const missing = actor.user.agent?.missingScopeFor(verb)
  if (missing) throw forbidden(`missing scope ${missing}`)
  if (verb.permission === null || actor.user.agent) return
  const [section, action] = verb.permission.split(':') as [Section, Action]
  if (!can(actor.user, section, action)) throw forbidden(`missing permission ${section}:${action}`)
}

/** The first schema error as "field: message", the same shape the HTTP edge gives Elysia's. */
function schemaError(schema: TSchema, input: unknown): string | null {
  const first = Value.Errors(schema, input).First()
  if (!first) return null
  const field = first.path.replace(/^\//, '').replace(/\//g, '.')
  return field ? `${field}: ${first.message}` : `invalid input: ${first.message}`
}

/** Runs a verb for an actor: permission, input schema, then the verb's own rules. */
export async function invoke<I extends TSchema, O>(verb: Verb<I, O>, actor: Actor, input: Static<I>): Promise<O> {
  checkPermission(verb as never, actor)
  const error = schemaError(verb.input, input)
  if (error) throw invalid(error)
  return verb.run(actor, input)
}
