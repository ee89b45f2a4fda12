// The macros of a source's postback URL (the conversion forwarded to the traffic source), and what is left of a
// URL after they are filled: one list for the forward (postback/forward.ts), the source's API answer
// (`postback_url_warnings`) and the dashboard's sources form, which imports this file as it is (no imports).

/** Filled from the conversion and its campaign when the forward job is enqueued. */
export const CONVERSION_MACROS = [
  'click_id', 'payout', 'status', 'type', 'tid', 'currency', 'external_id', 'campaign_id', 'offer_id', 'source_id', 'landing_id',
] as const

/** Filled from the stored click when the forward job runs (empty when the tracking link did not carry it). */
export const SUB_MACROS = ['sub1', 'sub2', 'sub3', 'sub4', 'sub5', 'sub6', 'sub7', 'sub8', 'sub9', 'sub10'] as const

/** Every macro svc fills in a postback URL; any other {name} is filled only by a parameter of that name stored with the click. */
export const POSTBACK_MACROS: readonly string[] = [...CONVERSION_MACROS, ...SUB_MACROS]

const KNOWN = new Set(POSTBACK_MACROS)

/** `{name}`: a macro; `[NAME]`: a network's own placeholder (PopAds' [IMPRESSIONID]) pasted in as it is. */
const PLACEHOLDER = /\{([A-Za-z0-9_]+)\}|\[([A-Z][A-Z0-9_]*)\]/g

/** Where the scheme and host end: macros are never filled there (they may not decide where a request goes). */
export function authorityEnd(url: string): number {
  const m = /^[^:]*:[/\\]*[^/\\?#]*/.exec(url)
  return m ? m[0].length : 0
}

/**
 * Fills `{name}` in the path, query and fragment with `value(name)` (already URL-encoded); a name it
 * answers undefined for stays as written. Scheme and host are left alone.
 */
export function fillMacros(url: string, value: (name: string) => string | undefined): string {
  const at = authorityEnd(url)
  return url.slice(0, at) + url.slice(at).replace(/\{([A-Za-z0-9_]+)\}/g, (whole, name: string) => value(name) ?? whole)
}

/** The placeholders still in a URL, in order, each once: `{name}` anywhere, `[NAME]` after the host. */
export function unreplacedPlaceholders(url: string, where: 'all' | 'host' | 'rest' = 'all'): string[] {
  const at = authorityEnd(url)
  const found = new Set<string>()
  for (const m of url.matchAll(PLACEHOLDER)) {
    const inHost = m.index! < at
    if (m[2] !== undefined && inHost) continue // [::1]: an IPv6 host, not a placeholder
    if ((where === 'host' && !inHost) || (where === 'rest' && inHost)) continue
    found.add(m[0])
  }
  return [...found]
}

/** Why a forwarded URL with placeholders left in it is worth a look (the conversion's forward_warning); null when none is left. */
export function forwardWarning(url: string): string | null {
  const host = unreplacedPlaceholders(url, 'host')
  const rest = unreplacedPlaceholders(url, 'rest')
  const parts: string[] = []
  if (host.length) parts.push(`${host.join(', ')} in the scheme or host as written (macros are never filled there)`)
  if (rest.length) parts.push(`${rest.join(', ')} as written: no macro or parameter of the click has that name`)
  return parts.length ? `sent with ${parts.join('; ')}` : null
}

/**
 * What the operator should know about a postback URL template before a conversion is forwarded: each
 * placeholder svc does not fill, and what happens to it (a parameter of the source's link_params is filled from
 * the click). The request is still sent with it as written.
 */
export function postbackUrlWarnings(template: string | null | undefined, linkParams: readonly string[] = []): string[] {
  if (!template) return []
  const out: string[] = []
  for (const p of unreplacedPlaceholders(template)) {
    if (p.startsWith('[')) {
      out.push(`${p} is the network's own placeholder, not a svc macro: put the macro of the sub parameter that carries it on your tracking link, e.g. {sub1}`)
      continue
    }
    const name = p.slice(1, -1)
    if (KNOWN.has(name) || linkParams.includes(name)) continue // a link parameter of the source's tracking link: the click carries it
    out.push(`${p} is not a svc macro: it is sent as written unless the click's tracking link carried a parameter named "${name}"`)
  }
  return out
}
