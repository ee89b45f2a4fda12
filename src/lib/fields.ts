// Field rules shared by verbs: bounded text, slugs, URL templates. Each throws `invalid` naming the field.
import { Type, type IntegerOptions } from '@sinclair/typebox'
import { invalid } from './errors'

/**
 * A strict JSON integer. Elysia's t.Integer also accepts numeric strings ("3"), which would make
 * integer fields lenient while number fields (t.Number) are strict; plain TypeBox keeps them alike.
 */
export const Int = (options?: IntegerOptions) => Type.Integer(options)

/**
 * PostgreSQL text cannot hold a NUL character (SQLite can): refused on both engines alike, so a name is
 * stored the same everywhere instead of failing only on Postgres. No legitimate text has one.
 */
function noNul(s: string, field: string): string {
  if (s.includes('\0')) throw invalid(`${field}: must not contain NUL characters`)
  return s
}

/** Trimmed, non-empty, bounded text. */
export function requiredText(value: unknown, field: string, max = 200): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(`${field}: must be a non-empty string`)
  const s = value.trim()
  if (s.length > max) throw invalid(`${field}: must be at most ${max} characters`)
  return noNul(s, field)
}

/** null, '' and whitespace clear the field. */
export function optionalText(value: unknown, field: string, max = 200): string | null {
  if (value === null || value === undefined) return null
  if (typeof value !== 'string') throw invalid(`${field}: must be a string or null`)
  const s = value.trim()
  if (s.length > max) throw invalid(`${field}: must be at most ${max} characters`)
  return s === '' ? null : noNul(s, field)
}

export const SLUG = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/

export function slug(value: unknown, field = 'slug'): string {
  if (typeof value !== 'string' || !SLUG.test(value)) {
    throw invalid(`${field}: must be 1-64 letters, digits, "_" or "-", starting with a letter or digit`)
  }
  return value
}

export const MAX_URL = 4096

const MACRO = /\{[A-Za-z0-9_]+\}/
const MACROS = new RegExp(MACRO.source, 'g')

/**
 * True when a {macro} stands in the scheme or the authority (user info, host, port) of a URL template.
 * A visitor controls sub1…sub10, so a macro there lets anyone choose where a redirect or a forwarded
 * postback goes (`http://{sub1}/` with sub1=evil.example is an open redirect). The authority ends at the
 * first /, \, ? or # (backslash counts: URL parsers treat it as a slash in http(s) URLs).
 */
export function macroInSchemeOrHost(template: string): boolean {
  const m = /^([^:]*):[/\\]*([^/\\?#]*)/.exec(template.trim())
  if (!m) return false // not a URL at all: the URL check refuses it
  return MACRO.test(m[1]!) || MACRO.test(m[2]!)
}

/**
 * An absolute http(s) URL that may contain {macro} placeholders in its path, query and fragment (never
 * in the scheme or host, see macroInSchemeOrHost), checked with every placeholder replaced by a harmless word.
 */
export function urlTemplate(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(`${field}: must be an absolute http(s) URL`)
  const s = value.trim()
  if (s.length > MAX_URL) throw invalid(`${field}: must be at most ${MAX_URL} characters`)
  if (macroInSchemeOrHost(s)) {
    throw invalid(`${field}: macros such as {sub1} are allowed in the path, query and fragment only, not in the scheme or host`)
  }
  let u: URL
  try {
    u = new URL(s.replace(MACROS, 'x'))
  } catch {
    throw invalid(`${field}: must be an absolute http(s) URL`)
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) throw invalid(`${field}: must be an absolute http(s) URL`)
  return s
}

export function optionalUrlTemplate(value: unknown, field: string): string | null {
  if (value === null || value === undefined || (typeof value === 'string' && value.trim() === '')) return null
  return urlTemplate(value, field)
}

/**
 * An absolute http(s) URL used as it is: no {macro} is substituted (a fallback redirect has no click to
 * fill one from, and nothing of the visitor's request may steer where it goes). Null, '' and whitespace clear it.
 */
export function optionalPlainUrl(value: unknown, field: string): string | null {
  if (value === null || value === undefined || (typeof value === 'string' && value.trim() === '')) return null
  const bad = () => invalid(`${field}: must be an absolute http(s) URL`)
  if (typeof value !== 'string') throw bad()
  const s = value.trim()
  if (s.length > MAX_URL) throw invalid(`${field}: must be at most ${MAX_URL} characters`)
  if (/\{[A-Za-z0-9_]+\}/.test(s)) throw invalid(`${field}: macros such as {click_id} are not substituted in this URL`)
  let u: URL
  try {
    u = new URL(s)
  } catch {
    throw bad()
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) throw bad()
  return u.href
}

/** A positive integer id given in a JSON body. */
export function positiveId(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw invalid(`${field}: must be a positive integer`)
  return v
}
