// Oversized request bodies answer 413 with the JSON error body.
//
// Bun refuses a body over Bun.serve's maxRequestBodySize itself, before any handler, with a bare 413 (no
// body). So Bun's limit is set above ours (BODY_HARD_CAP), and a request whose Content-Length declares
// more than MAX_BODY_BYTES is answered here, before its body is read, with {"error": …}. Past the hard
// cap Bun still answers itself (bare 413): a declared length over it, or a chunked body (no Content-Length,
// so no size up front) that grows past it.
// Oversized headers are the same story: Bun answers 431 while parsing them, before any JS runs, and that
// answer carries no body (there is no hook for it).
import { Elysia } from 'elysia'
import { errorResponse } from './errors'

/** The largest body svc reads: webhook bodies may be 2 MB (spec §8); nothing else needs more. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024 + 64 * 1024
/** A CSV import of 50,000 subscribers with their fields (admin only, signed in). */
export const IMPORT_BODY_BYTES = 8 * 1024 * 1024
/** Bun.serve's maxRequestBodySize: the stop for bodies that do not declare their length. */
export const BODY_HARD_CAP = 4 * MAX_BODY_BYTES

const IMPORT_PATH = /^\/admin\/api\/email-lists\/[^/?]+\/subscribers\/import(?:\?|$)/

export const bodyLimit = new Elysia({ name: 'body-limit' }).onRequest(({ request }) => {
  const declared = request.headers.get('content-length')
  if (declared === null) return
  const path = request.url.slice(request.url.indexOf('/', request.url.indexOf('://') + 3))
  const limit = IMPORT_PATH.test(path) ? IMPORT_BODY_BYTES : MAX_BODY_BYTES
  if (Number(declared) > limit) {
    // Connection: close, because the unread body would otherwise be taken for the next request.
    return errorResponse(413, `request body too large (at most ${limit} bytes)`, { connection: 'close' })
  }
})
