// Helpers every admin collection shares: paging, path ids, timestamps, field checks, unique violations.
import { t } from 'elysia'
import { Type, type IntegerOptions } from '@sinclair/typebox'
import { badRequest, notFound } from '../lib/errors'
import { DEFAULT_LIMIT, MAX_LIMIT, pageOf as pageOfRows, parseCursor, parseLimit } from '../lib/paging'

/**
 * A strict JSON integer. Elysia's t.Integer also accepts numeric strings ("3"), which would make
 * integer fields lenient while number fields (t.Number) are strict; plain TypeBox keeps them alike.
 */
export const Int = (options?: IntegerOptions) => Type.Integer(options)

export { DEFAULT_LIMIT, MAX_LIMIT } from '../lib/paging'

/** `?limit=&cursor=` of every collection GET (CONTRACT.md §2). */
export const pageQuery = t.Object({
  limit: t.Optional(t.String({ description: `page size, 1..${MAX_LIMIT} (default ${DEFAULT_LIMIT}; larger values are capped)` })),
  cursor: t.Optional(t.String({ description: 'next_cursor of the previous page' })),
})

export interface Page {
  /** Rows with an id greater than this come next. */
  afterId: number
  limit: number
}

/** The cursor is the last id of the previous page, so paging is stable while rows are added. */
export function parsePage(query: { limit?: string; cursor?: string }): Page {
  return { afterId: parseCursor(query.cursor) ?? 0, limit: parseLimit(query.limit) }
}

/** Callers fetch limit + 1 rows; the extra row only says whether there is a next page. */
export function toPage<R extends { id: number }, O>(rows: R[], page: Page, render: (row: R) => O): { items: O[]; next_cursor: string | null } {
  return pageOfRows(rows, page.limit, render)
}

export const pageOf = <T extends Parameters<typeof t.Array>[0]>(item: T) =>
  t.Object({ items: t.Array(item), next_cursor: t.Union([t.String(), t.Null()]) })

export const idParams = t.Object({ id: t.String({ description: 'integer id' }) })

/** A path id that is not a positive integer names no record: 404 like any unknown id. */
export function parseId(raw: string, what: string): number {
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw notFound(`${what} not found`)
  return Number(raw)
}

export const iso = (ms: number) => new Date(ms).toISOString()

export const okResponse = t.Object({ ok: t.Literal(true) })
export const errorResponse = t.Object({ error: t.String() })

/** Trimmed, non-empty, bounded text. */
export function requiredText(value: unknown, field: string, max = 200): string {
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(`${field}: must be a non-empty string`)
  const s = value.trim()
  if (s.length > max) throw badRequest(`${field}: must be at most ${max} characters`)
  return s
}

/** null, '' and whitespace clear the field. */
export function optionalText(value: unknown, field: string, max = 200): string | null {
  if (value === null || value === undefined) return null
  if (typeof value !== 'string') throw badRequest(`${field}: must be a string or null`)
  const s = value.trim()
  if (s.length > max) throw badRequest(`${field}: must be at most ${max} characters`)
  return s === '' ? null : s
}

export const SLUG = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/

export function slug(value: unknown, field = 'slug'): string {
  if (typeof value !== 'string' || !SLUG.test(value)) {
    throw badRequest(`${field}: must be 1-64 letters, digits, "_" or "-", starting with a letter or digit`)
  }
  return value
}

export const MAX_URL = 4096

/**
 * An absolute http(s) URL that may contain {macro} placeholders anywhere (even in the host), checked
 * with every placeholder replaced by a harmless word.
 */
export function urlTemplate(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(`${field}: must be an absolute http(s) URL`)
  const s = value.trim()
  if (s.length > MAX_URL) throw badRequest(`${field}: must be at most ${MAX_URL} characters`)
  let u: URL
  try {
    u = new URL(s.replace(/\{[A-Za-z0-9_]+\}/g, 'x'))
  } catch {
    throw badRequest(`${field}: must be an absolute http(s) URL`)
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) throw badRequest(`${field}: must be an absolute http(s) URL`)
  return s
}

export function optionalUrlTemplate(value: unknown, field: string): string | null {
  if (value === null || value === undefined || (typeof value === 'string' && value.trim() === '')) return null
  return urlTemplate(value, field)
}

/** SQLite UNIQUE violations (both drivers set the extended result code; drizzle may wrap it in `cause`). */
export function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as never, depth++) {
    if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return true
  }
  return false
}
