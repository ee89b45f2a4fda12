/**
 * The one error type verbs and stores throw for expected failures. It carries a meaning (a code), not a
 * transport status: the HTTP edge (src/http/errors.ts) maps each code to a status and answers
 * `{ "error": message }`; the MCP surface will map the same codes to its own errors. Anything that is not
 * an AppError is unexpected and becomes a logged 500 without details.
 */
export const ERROR_CODES = ['invalid', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'rate_limited'] as const
export type ErrorCode = (typeof ERROR_CODES)[number]

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** rate_limited: seconds until the caller may try again. */
    readonly retryAfterSeconds?: number,
    /** unauthorized: the WWW-Authenticate challenge to send (bearer-token surfaces). */
    readonly challenge?: string,
  ) {
    super(message)
  }
}

export const invalid = (message: string) => new AppError('invalid', message)
export const unauthorized = (message = 'not authenticated') => new AppError('unauthorized', message)
/** 401 for a bearer-token request (agent API): carries `WWW-Authenticate: Bearer …`. */
export const bearerUnauthorized = (message: string) => new AppError('unauthorized', message, undefined, `Bearer realm="svc", error="invalid_token", error_description="${message}"`)
export const forbidden = (message = 'permission denied') => new AppError('forbidden', message)
export const notFound = (message = 'not found') => new AppError('not_found', message)
export const conflict = (message: string) => new AppError('conflict', message)
export const rateLimited = (retryAfterSeconds: number) => new AppError('rate_limited', 'too many requests', retryAfterSeconds)
