// The four browser scripts of hosted landing pages (docs/browser-scripts.md): /pixel.js, /client.js,
// /cloak.js and /i18n.js. They are imported as text, so `bun build --compile` embeds them in the binary,
// and served by Bun.serve directly (native routes): no database, no per-request work beyond an ETag compare.
// @ts-ignore: a text import (a string); TypeScript does not know import attributes change the type.
import pixelSource from './pixel.js' with { type: 'text' }
// @ts-ignore: as above
import clientSource from './client.js' with { type: 'text' }
// @ts-ignore: as above
import cloakSource from './cloak.js' with { type: 'text' }
// @ts-ignore: as above
import i18nSource from './i18n.js' with { type: 'text' }
import type { NativeRoutes } from '../../context'

/** Path → source text of every script this module serves. */
export const SCRIPT_SOURCES: Readonly<Record<string, string>> = {
  '/pixel.js': pixelSource as string,
  '/client.js': clientSource as string,
  '/cloak.js': cloakSource as string,
  '/i18n.js': i18nSource as string,
}

/**
 * An hour: the scripts change between versions of svc, so they are not immutable; the ETag makes the
 * revalidation after that hour a bodiless 304.
 */
export const SCRIPT_CACHE_CONTROL = 'public, max-age=3600'

/** A strong ETag: the quoted first 128 bits of the content's SHA-256, base64url. */
export function scriptEtag(source: string): string {
  return `"${new Bun.CryptoHasher('sha256').update(source).digest('base64url').slice(0, 22)}"`
}

/**
 * Whether an If-None-Match header matches `etag`: `*`, or any entry of the list, compared weakly
 * (RFC 9110 §13.1.2: a `W/` prefix is ignored).
 */
export function ifNoneMatchMatches(header: string | null, etag: string): boolean {
  if (!header) return false
  for (const raw of header.split(',')) {
    const tag = raw.trim()
    if (tag === '*') return true
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true
  }
  return false
}

interface Prepared {
  body: Uint8Array<ArrayBuffer>
  etag: string
  headers: Record<string, string>
  notModifiedHeaders: Record<string, string>
}

function prepare(source: string): Prepared {
  const body = new TextEncoder().encode(source) as Uint8Array<ArrayBuffer>
  const etag = scriptEtag(source)
  const common = {
    etag,
    'cache-control': SCRIPT_CACHE_CONTROL,
    'x-content-type-options': 'nosniff',
    // Public scripts, loaded by landing pages on other sites too.
    'access-control-allow-origin': '*',
    'cross-origin-resource-policy': 'cross-origin',
  }
  return {
    body,
    etag,
    headers: { ...common, 'content-type': 'text/javascript; charset=utf-8', 'content-length': String(body.byteLength) },
    notModifiedHeaders: common,
  }
}

// Once, at module load.
const PREPARED: Record<string, Prepared> = Object.fromEntries(
  Object.entries(SCRIPT_SOURCES).map(([path, source]) => [path, prepare(source)]),
)

function respond(script: Prepared, request: Request, withBody: boolean): Response {
  if (ifNoneMatchMatches(request.headers.get('if-none-match'), script.etag)) {
    return new Response(null, { status: 304, headers: script.notModifiedHeaders })
  }
  return new Response(withBody ? script.body : null, { status: 200, headers: script.headers })
}

/** The native routes of the four scripts (GET and HEAD). */
export function scriptRoutes(): NativeRoutes {
  const routes: NativeRoutes = {}
  for (const [path, script] of Object.entries(PREPARED)) {
    routes[path] = {
      GET: (request) => respond(script, request, true),
      HEAD: (request) => respond(script, request, false),
    }
  }
  return routes
}
