// Small embedded scripts served by Bun.serve directly (native routes): the landing scripts, the storefront
// script. Prepared once at module load; a request costs an ETag compare.
import type { NativeRoutes } from '../context'

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
    // Public scripts, loaded by pages on other sites too.
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

function respond(script: Prepared, request: Request, withBody: boolean): Response {
  if (ifNoneMatchMatches(request.headers.get('if-none-match'), script.etag)) {
    return new Response(null, { status: 304, headers: script.notModifiedHeaders })
  }
  return new Response(withBody ? script.body : null, { status: 200, headers: script.headers })
}

/** Native routes (GET and HEAD) for path → script source. */
export function staticScriptRoutes(sources: Readonly<Record<string, string>>): NativeRoutes {
  const routes: NativeRoutes = {}
  for (const [path, source] of Object.entries(sources)) {
    const script = prepare(source)
    routes[path] = {
      GET: (request) => respond(script, request, true),
      HEAD: (request) => respond(script, request, false),
    }
  }
  return routes
}
