// Reading a request body with a hard cap, for routes that need the raw bytes (uploads, signed webhooks):
// a body that declares no length (chunked) is read only until it passes the cap, never buffered whole.

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
