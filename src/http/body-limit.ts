// Oversized request bodies answer 413 with the JSON error body.
//
// Bun refuses a body over Bun.serve's maxRequestBodySize itself, before any handler, with a bare 413 (no
// body). So Bun's limit is set above ours (BODY_HARD_CAP), and a request whose Content-Length declares
// more than MAX_BODY_BYTES is answered here, before its body is read, with {"error": …}. Past the hard
// cap Bun still answers itself (bare 413): a declared length over it, or a chunked body (no Content-Length,
// so no size up front) that grows past it.
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
/** Bun.serve's maxRequestBodySize: the stop for bodies that do not declare their length. Above every limit here. */
export const BODY_HARD_CAP = 4 * MAX_BODY_BYTES

const IMPORT_PATH = /^\/admin\/api\/email-lists\/[^/?]+\/subscribers\/import(?:\?|$)/
/** PUT /admin/api/landings/:id/assets/<path> (raw upload). */
const ASSET_PUT_PATH = /^\/admin\/api\/landings\/[^/?]+\/assets\/[^?]/
/** POST /admin/api/landings/:id/assets (multipart upload). */
const ASSET_POST_PATH = /^\/admin\/api\/landings\/[^/?]+\/assets\/?(?:\?|$)/

/** The most a request to `path` may declare (the upload routes also stop reading a chunked body past it). */
export function bodyLimitOf(method: string, path: string): number {
  if (method === 'PUT' && ASSET_PUT_PATH.test(path)) return ASSET_BODY_BYTES
  if (method === 'POST' && ASSET_POST_PATH.test(path)) return ASSET_MULTIPART_BODY_BYTES
  if (path.startsWith('/webhook/')) return WEBHOOK_BODY_BYTES
  return IMPORT_PATH.test(path) ? IMPORT_BODY_BYTES : MAX_BODY_BYTES
}

/** The 413 for a request whose Content-Length declares more than its route reads; null when it may go on. */
export function oversizedBody(request: Request): Response | null {
  const declared = request.headers.get('content-length')
  if (declared === null) return null
  const path = request.url.slice(request.url.indexOf('/', request.url.indexOf('://') + 3))
  const limit = bodyLimitOf(request.method, path)
  if (Number(declared) <= limit) return null
  // Connection: close, because the unread body would otherwise be taken for the next request.
  return errorResponse(413, `request body too large (at most ${limit} bytes)`, { connection: 'close' })
}

/** Elysia's routes; the Bun routes that may receive a body (/postback) call oversizedBody themselves. */
export const bodyLimit = new Elysia({ name: 'body-limit' }).onRequest(({ request }) => oversizedBody(request) ?? undefined)
