// Schemas that document a route without changing how it validates. Several admin routes parse their
// query strings and bodies in the verb, leniently and with 400s that name the field; a strict Elysia
// schema there would answer earlier, differently (or silently reshape the input). These helpers give
// @elysiajs/openapi something to describe while Elysia still passes the input through as sent.
import { t } from 'elysia'
import type { TSchema } from '@sinclair/typebox'

/**
 * A query documented field by field, every field an optional string, unknown keys kept
 * (`additionalProperties`: a schema without it would strip them before the verb sees them).
 * The verb still parses each value and names the field in its 400.
 */
export function docQuery(fields: Record<string, string>) {
  const properties: Record<string, TSchema> = {}
  for (const [name, description] of Object.entries(fields)) properties[name] = t.Optional(t.String({ description }))
  return t.Object(properties, { additionalProperties: true })
}

/** Where a lenient body keeps the shape it documents; a symbol, so no validator or mirror ever reads it. */
const DOCUMENTED_AS = Symbol('svc.documentedAs')

/**
 * A body the verb checks itself (each bad entry gets a message that names it): validated as
 * t.Unknown, so Elysia neither rejects nor reshapes it (any JSON keyword on the schema would make
 * Elysia's mirror drop keys and turn arrays into objects), and documented as `shape`.
 */
export function lenientBody(description: string, shape: Record<string, unknown>): TSchema {
  const schema = t.Unknown({ description })
  Object.defineProperty(schema, DOCUMENTED_AS, { value: { description, ...shape } })
  return schema
}

interface DocumentedRoute {
  method: string
  path: string
  hooks?: { body?: TSchema }
}

type Operation = { requestBody?: { description?: string; content?: Record<string, unknown>; required?: boolean } }

/**
 * The plugin leaves `content: {}` on every request body of a route with a function parse hook (the
 * admin guard's early check is one), since it cannot tell which content types that hook accepts.
 * Admin bodies are JSON only (`requireJsonBody`), so each body is described as application/json.
 */
export function fillRequestBodies(doc: { paths?: Record<string, Record<string, Operation>> }, routes: readonly DocumentedRoute[]) {
  for (const route of routes) {
    const body = route.hooks?.body
    if (!body) continue
    const op = doc.paths?.[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()]
    if (!op?.requestBody || Object.keys(op.requestBody.content ?? {}).length > 0) continue
    const schema = (body as unknown as Record<symbol, unknown>)[DOCUMENTED_AS] ?? body
    op.requestBody.content = { 'application/json': { schema } }
  }
}
