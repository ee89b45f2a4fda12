// Reading a request body with a hard cap, for routes that need the raw bytes (uploads, signed webhooks,
// the landing endpoints): a body that declares no length (chunked) is counted as it streams and read only
// until it passes the cap, never buffered whole.

/** The body's bytes, or null when it is longer than `limit` (reading stops there; the rest is never read). */
export async function readBodyLimited(request: Request, limit: number): Promise<Uint8Array | null> {
  if (!request.body) return new Uint8Array(0)
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > limit) {
      await reader.cancel().catch(() => {})
      return null
    }
    chunks.push(value)
  }
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.byteLength
  }
  return out
}

/** A body longer than its route reads: answered with tooLargeResponse(limit) (body-limit.ts), never a 500. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`request body too large (at most ${limit} bytes)`)
  }
}

/**
 * The body's bytes, at most `limit`: BodyTooLarge when its Content-Length declares more or it streams past
 * `limit`; `unreadable` (the caller's error) when the client broke the body off mid-way.
 */
export async function readBodyWithin(request: Request, limit: number, unreadable: () => Error): Promise<Uint8Array> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > limit) throw new BodyTooLarge(limit)
  let bytes: Uint8Array | null
  try {
    bytes = await readBodyLimited(request, limit)
  } catch {
    throw unreadable()
  }
  if (bytes === null) throw new BodyTooLarge(limit)
  return bytes
}
