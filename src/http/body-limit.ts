// Oversized request bodies answer 413 with the JSON error body; bodies of unknown length (chunked) are read
// only by the routes that count them as they stream, and refused (411) by the others before they are read.
//
// Bun refuses a body over Bun.serve's maxRequestBodySize itself, before any handler, with a bare 413 (no
// body). So Bun's limit is set above ours (BODY_HARD_CAP), and a request whose Content-Length declares
// more than MAX_BODY_BYTES is answered here, before its body is read, with {"error": …}. Past the hard
// cap Bun still answers itself (bare 413) to a declared length over it. A chunked body (no Content-Length, so
// no size up front) reaches only the routes that stop reading it at their own limit (countsAsItStreams:
// /webhook/*, /api/lead, /api/events, /api/cloak, asset uploads), which answer this 413 themselves; every
// other route answers 411 to it before reading a byte.
// The exceptions to MAX_BODY_BYTES are the admin file uploads (bodyLimitOf): the CSV import, and landing
// assets (PUT …/assets/<path>: the raw file, 5 MB; POST …/assets: multipart, 5 MB + 64 KB). The asset
// routes also stop reading a body without Content-Length past their limit (413 as well).
// Oversized headers are the same story: Bun answers 431 while parsing them, before any JS runs, and that
// answer carries no body (there is no hook for it).
import { Elysia } from 'elysia'
import { errorResponse } from './errors'

/** The largest body svc reads: webhook bodies may be 2 MB (spec §8); nothing else needs more. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024 + 64 * 1024
/** A CSV import of 50,000 subscribers with their fields (admin only, signed in). */
export const IMPORT_BODY_BYTES = 8 * 1024 * 1024
/** A landing asset uploaded as the raw body (PUT …/assets/<path>): the file itself, at most 5 MB (= MAX_ASSET_BYTES of landings/assets.ts). */
export const ASSET_BODY_BYTES = 5 * 1024 * 1024
/** A landing asset uploaded as multipart/form-data (POST …/assets): the 5 MB file plus the form's overhead. */
export const ASSET_MULTIPART_BODY_BYTES = ASSET_BODY_BYTES + 64 * 1024
/** Every /webhook/* route (spec §8): the raw body up to exactly 2 MB; one byte more is 413. */
export const WEBHOOK_BODY_BYTES = 2 * 1024 * 1024
/** POST /api/lead: a lead form, custom fields included, is a few KB. */
export const LEAD_BODY_BYTES = 64 * 1024
/** POST /api/events and /api/cloak: an event or a bot report is a few hundred bytes. */
export const EVENT_BODY_BYTES = 8 * 1024
/** Bun.serve's maxRequestBodySize: the stop for bodies that do not declare their length. Above every limit here. */
export const BODY_HARD_CAP = 4 * MAX_BODY_BYTES

const IMPORT_PATH = /^\/admin\/api\/email-lists\/[^/?]+\/subscribers\/import(?:\?|$)/
/** PUT /admin/api/landings/:id/assets/<path> (raw upload). */
const ASSET_PUT_PATH = /^\/admin\/api\/landings\/[^/?]+\/assets\/[^?]/
/** POST /admin/api/landings/:id/assets (multipart upload). */
const ASSET_POST_PATH = /^\/admin\/api\/landings\/[^/?]+\/assets\/?(?:\?|$)/

/** The landing endpoints (public-routes.ts readFields): they count a chunked body's bytes as it streams. */
const LANDING_API_PATH = /^\/api\/(lead|events|cloak)\/?(?:\?|$)/

/** The most a request to `path` may declare (the upload routes also stop reading a chunked body past it). */
export function bodyLimitOf(method: string, path: string): number {
  if (method === 'PUT' && ASSET_PUT_PATH.test(path)) return ASSET_BODY_BYTES
  if (method === 'POST' && ASSET_POST_PATH.test(path)) return ASSET_MULTIPART_BODY_BYTES
  if (path.startsWith('/webhook/')) return WEBHOOK_BODY_BYTES
  const landingApi = method === 'POST' ? LANDING_API_PATH.exec(path) : null
  if (landingApi) return landingApi[1] === 'lead' ? LEAD_BODY_BYTES : EVENT_BODY_BYTES
  return IMPORT_PATH.test(path) ? IMPORT_BODY_BYTES : MAX_BODY_BYTES
}

/**
 * The one 413 answer: `{"error":"request body too large (at most N bytes)"}`. Connection: close, because
 * the unread rest of the body would otherwise be taken for the next request.
 */
export function tooLargeResponse(limit: number, headers: Record<string, string> = {}): Response {
  return errorResponse(413, `request body too large (at most ${limit} bytes)`, { ...headers, connection: 'close' })
}

/**
 * The routes that read a body without Content-Length (chunked) themselves, counting its bytes as it streams
 * and stopping at their limit (http/raw-body.ts): every /webhook/*, the landing endpoints and the asset
 * uploads. Every other route lets Elysia (or a library: the MCP SDK) buffer the body whole, so a body whose
 * length is not declared is refused there (411) before it is read.
 */
function countsAsItStreams(method: string, path: string): boolean {
  if (path.startsWith('/webhook/')) return true
  if (method === 'POST' && LANDING_API_PATH.test(path)) return true
  return (method === 'PUT' && ASSET_PUT_PATH.test(path)) || (method === 'POST' && ASSET_POST_PATH.test(path))
}

/**
 * The 413 for a request whose Content-Length declares more than its route reads; the 411 for a chunked body
 * on a route that would buffer it whole; null when it may go on.
 */
export function oversizedBody(request: Request): Response | null {
  const declared = request.headers.get('content-length')
  const path = request.url.slice(request.url.indexOf('/', request.url.indexOf('://') + 3))
  if (declared === null) {
    if (!request.headers.has('transfer-encoding') || countsAsItStreams(request.method, path)) return null
    return errorResponse(411, 'send the request body with a Content-Length header (a chunked body is not accepted here)', { connection: 'close' })
  }
  const limit = bodyLimitOf(request.method, path)
  if (Number(declared) <= limit) return null
  return tooLargeResponse(limit)
}

/** Elysia's routes; the Bun routes that may receive a body (/postback) call oversizedBody themselves. */
export const bodyLimit = new Elysia({ name: 'body-limit' }).onRequest(({ request }) => oversizedBody(request) ?? undefined)
