import { Elysia } from 'elysia'
import { randomBytes } from 'node:crypto'
import { AppError, type ErrorCode } from '../lib/errors'
import { errorFields, log } from '../lib/log'
import { requestPath } from './access-log'
import { ADMIN_HEADERS } from './security-headers'

/** The one map from an error's meaning to its HTTP status. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
}

/** The one error body: `{ "error": "…" }`. */
export const errorResponse = (status: number, error: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ error }), { status, headers: { 'content-type': 'application/json', ...headers } })
const json = errorResponse

/** An AppError as an HTTP answer (status from its code; 429 carries Retry-After). */
export function appErrorResponse(err: AppError, headers: Record<string, string> = {}): Response {
  let extra = err.retryAfterSeconds !== undefined ? { ...headers, 'retry-after': String(err.retryAfterSeconds) } : headers
  if (err.challenge) extra = { ...extra, 'www-authenticate': err.challenge }
  return json(HTTP_STATUS[err.code], err.message, extra)
}

/**
 * An unexpected failure: logged on one line with its stack and a short request id, answered as a bare
 * 500 that carries the same id in `x-request-id`, so an operator can find the line a user reports.
 * The body stays `{"error":"internal error"}`: nothing about the failure leaks. Only the path is logged,
 * never the query string (postback signatures, click data).
 */
export function internalError(request: Request, err: unknown): Response {
  const requestId = randomBytes(6).toString('base64url')
  log.error('unexpected error', { request_id: requestId, method: request.method, path: requestPath(request.url), ...errorFields(err) })
  return json(500, 'internal error', { 'x-request-id': requestId })
}

function validationMessage(err: unknown): string {
  // Elysia's ValidationError carries TypeBox details; name the field, hide the schema dump.
  const e = err as { all?: Array<{ path?: string; message?: string; summary?: string; schema?: { anyOf?: Array<{ const?: unknown }> } }>; type?: string; message?: string }
  const first = e.all?.[0]
  if (first) {
    const field = (first.path ?? '').replace(/^\//, '').replace(/\//g, '.')
    // A union of literals says what it accepts ("must be one of rotation, url"), not TypeBox's list of types.
    const options = first.schema?.anyOf
    const what = options?.length && options.every((o) => typeof o.const === 'string')
      ? `must be one of ${options.map((o) => o.const).join(', ')}`
      : first.summary ?? first.message ?? 'is invalid'
    return field ? `${field}: ${what}` : `invalid ${e.type ?? 'input'}: ${what}`
  }
  return 'invalid input'
}

/**
 * The one error mapping: every failure becomes `{ "error": "…" }` with the right status.
 * Unexpected errors are logged with their stack and a request id, answered as a bare 500, never leaked.
 * The parameter is destructured on purpose: Elysia reads a hook's parameter list to decide what every
 * request's context must compute, and a bare `(c) =>` would make each route pay for all of it.
 */
export const errorHandler = new Elysia({ name: 'error-handler' }).onError({ as: 'global' }, ({ code, error, request, set }) => {
  const response = errorAnswer(code, error, request)
  // Elysia's afterResponse hooks see set.status, not this Response: keep them in step (the access log).
  set.status = response.status
  return response
})

function errorAnswer(code: string | number, error: unknown, request: Request): Response {
  if (error instanceof AppError) return appErrorResponse(error)
  switch (code) {
    case 'VALIDATION':
      return json(400, validationMessage(error))
    case 'PARSE':
      return json(400, 'invalid request body')
    case 'NOT_FOUND':
      // The dashboard is Bun's exact route /admin, so `/admin/` (a typed or bookmarked slash) lands here.
      if (requestPath(request.url) === '/admin/') return new Response(null, { status: 302, headers: { ...ADMIN_HEADERS, location: '/admin' } })
      return json(404, 'not found')
    case 'INVALID_COOKIE_SIGNATURE':
      return json(401, 'not authenticated')
    default: {
      const status = (error as { status?: number }).status
      if (typeof status === 'number' && status >= 400 && status < 500) {
        return json(status, status === 413 ? 'request body too large' : 'invalid request')
      }
      // A JSON body nested tens of thousands of levels deep overflows the stack while Elysia validates it
      // (its ValidationError stringifies the value): the request's fault, not a server failure.
      if (error instanceof RangeError && /call stack/i.test(error.message) && request.method !== 'GET' && request.method !== 'HEAD') {
        return json(400, 'request body is nested too deeply')
      }
      return internalError(request, error)
    }
  }
}
