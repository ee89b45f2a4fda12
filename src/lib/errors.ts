/**
 * The one error type services throw for expected failures. The HTTP edge (src/http/errors.ts) maps it
 * to `{ "error": message }` with `status`; anything else becomes a logged 500 without details.
 */
export class AppError extends Error {
  constructor(public readonly status: number, message: string, public readonly headers?: Record<string, string>) {
    super(message)
  }
}

export const badRequest = (message: string) => new AppError(400, message)
export const unauthorized = (message = 'not authenticated') => new AppError(401, message)
export const forbidden = (message = 'permission denied') => new AppError(403, message)
export const notFound = (message = 'not found') => new AppError(404, message)
export const conflict = (message: string) => new AppError(409, message)
export const tooManyRequests = (retryAfterSeconds: number) =>
  new AppError(429, 'too many requests', { 'retry-after': String(retryAfterSeconds) })
