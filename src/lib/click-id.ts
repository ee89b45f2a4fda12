const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Lower-cased click id, or null when the text is not a UUID (any version, any case). */
export function normalizeClickId(v: string | null | undefined): string | null {
  return typeof v === 'string' && v.length === 36 && UUID_RE.test(v) ? v.toLowerCase() : null
}
