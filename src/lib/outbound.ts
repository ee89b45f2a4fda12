// Server-side HTTP to addresses that operators configure (source postback URLs, provider APIs), with an
// SSRF guard: unless private targets are allowed, every address the host resolves to must be public.
import { abortable } from './abortable'
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { isNonPublicAddress } from './ip'

/**
 * A failed outbound request. `retryable` says whether another attempt can help (network trouble, 5xx,
 * 429) or not (refused by the SSRF guard, bad URL, 4xx). The job loop honours it like a JobError.
 */
export class OutboundError extends Error {
  constructor(message: string, readonly retryable: boolean) {
    super(message)
  }
}

export interface OutboundOptions {
  /** SVC_OUTBOUND_ALLOW_PRIVATE: loopback and private targets are allowed. */
  allowPrivate: boolean
  /** Bounds the DNS lookup and the request (the job loop passes its deadline signal). */
  signal: AbortSignal
  /** Resolves a host name to its addresses; node:dns lookup unless a test stands in its own. */
  resolve?: (host: string) => Promise<string[]>
}

/** A checked URL and the addresses the connection may use (the ones that passed the check). */
export interface OutboundTarget {
  url: URL
  /** Bare host without brackets or trailing dot, lower-case. */
  host: string
  addresses: string[]
}

const ALLOW_HINT = '(set SVC_OUTBOUND_ALLOW_PRIVATE=1 to allow)'

function refuse(message: string): never {
  throw new OutboundError(`refused: ${message} ${ALLOW_HINT}`, false)
}

const dnsResolve = async (host: string) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)

/**
 * Parses the URL and resolves its host once. Unless private targets are allowed, every address must be
 * public (see isNonPublicAddress); the caller connects to these addresses only, so a DNS answer that
 * changes between the check and the connection (rebinding) cannot redirect the request.
 */
export async function resolveOutbound(raw: string, opts: OutboundOptions): Promise<OutboundTarget> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new OutboundError(`bad URL: ${JSON.stringify(raw.slice(0, 200))} is not an absolute URL`, false)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError(`bad URL: only http and https are allowed, got ${url.protocol.replace(/:$/, '')}`, false)
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase()
  if (!opts.allowPrivate && (host === 'localhost' || host.endsWith('.localhost'))) refuse(`${host} is a loopback name`)
  if (isIP(host)) {
    if (!opts.allowPrivate && isNonPublicAddress(host)) refuse(`${host} is a private address`)
    return { url, host, addresses: [host] }
  }
  let addresses: string[]
  try {
    addresses = await abortable((opts.resolve ?? dnsResolve)(host), opts.signal)
  } catch (err) {
    if (opts.signal.aborted) throw err
    const code = (err as { code?: string }).code ?? (err as Error).message
    // Usually a typo or a dead domain, but DNS also fails transiently; the attempt budget bounds retries.
    throw new OutboundError(`DNS lookup of ${host} failed: ${code}`, true)
  }
  if (addresses.length === 0) throw new OutboundError(`DNS lookup of ${host} failed: no addresses`, true)
  if (!opts.allowPrivate) {
    const bad = addresses.find((a) => isNonPublicAddress(a))
    if (bad) refuse(`${host} resolves to private address ${bad}`)
  }
  return { url, host, addresses }
}

/** Parses the URL and, unless private targets are allowed, checks every address its host resolves to. */
export async function checkOutboundUrl(raw: string, opts: OutboundOptions): Promise<URL> {
  return (await resolveOutbound(raw, opts)).url
}

/** Errors after which nothing was sent, so the next address of the name may be tried. */
const CONNECT_FAILURES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'])

/**
 * GET/POST through the guard. Redirects are never followed (a public URL could redirect to a private one).
 * Network failures become retryable OutboundErrors; a timeout rejects with the signal's TimeoutError.
 *
 * The connection goes to an address that passed the check, never to a fresh lookup: Bun's fetch dials the
 * address in the URL and sends the original name in `Host` and, over https, as the TLS server name (SNI
 * and certificate verification), as its docs describe ("Connecting to a specific address"). `proxy: false`,
 * because a proxy would make its own lookup. A refused connection moves on to the name's next address.
 */
export async function outboundFetch(raw: string, init: RequestInit & { tls?: Record<string, unknown> }, opts: OutboundOptions): Promise<Response> {
  const target = await resolveOutbound(raw, opts)
  const { url, host } = target
  const named = !isIP(host)
  const headers = new Headers(init.headers)
  if (named) headers.set('host', url.host)
  const tls = named && url.protocol === 'https:' ? { ...init.tls, serverName: host } : init.tls
  let lastError: unknown
  for (const address of target.addresses) {
    const pinned = new URL(url)
    pinned.hostname = address.includes(':') ? `[${address}]` : address
    try {
      return await fetch(pinned, {
        ...init,
        headers,
        ...(tls ? { tls } : {}),
        proxy: false,
        redirect: 'manual',
        signal: opts.signal,
      } as RequestInit)
    } catch (err) {
      if (opts.signal.aborted) throw err
      lastError = err
      if (!CONNECT_FAILURES.has((err as { code?: string }).code ?? '')) break
    }
  }
  const e = lastError as { code?: string; message?: string }
  throw new OutboundError(`network error: ${e.code && !String(e.message).startsWith(e.code) ? `${e.code}: ` : ''}${e.message ?? String(lastError)}`, true)
}

/** The most of a failed answer's body that a job's last_error keeps. */
export const SNIPPET_CHARS = 100

/**
 * A short, readable excerpt of a failed answer for last_error: at most SNIPPET_CHARS characters, control
 * and format characters removed, whitespace collapsed, and nothing at all from an HTML or XML page (an
 * error page says nothing its status does not, and last_error must not become a way to read pages).
 * Reads at most a few hundred bytes and cancels the rest, so sockets and memory are released.
 */
export async function bodySnippet(res: Response, max = SNIPPET_CHARS): Promise<string> {
  if (!res.body) return ''
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  const limit = max * 4
  try {
    while (size < limit) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      size += value.byteLength
    }
  } catch {
    // A body that breaks off mid-way says nothing more useful than its status.
  } finally {
    await reader.cancel().catch(() => {})
  }
  const type = res.headers.get('content-type') ?? ''
  const text = new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit))
  if (/html|xml/i.test(type) || /^\s*</.test(text)) return ''
  const clean = text
    .replace(/<[^>]*>?/g, ' ')
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return [...clean].slice(0, max).join('').trim()
}

/**
 * Maps an HTTP answer to success or a classified failure, always consuming the body:
 * 2xx → "HTTP 200"; 429 and 5xx → retryable; 3xx (not followed) and other 4xx → not retryable.
 */
export async function expectSuccess(res: Response): Promise<string> {
  const snippet = await bodySnippet(res)
  const status = `HTTP ${res.status}`
  if (res.status >= 200 && res.status < 300) return status
  const detail = snippet ? `${status}: ${snippet}` : status
  if (res.status >= 300 && res.status < 400) {
    const to = res.headers.get('location')
    throw new OutboundError(`${status} redirect${to ? ` to ${to.slice(0, 200)}` : ''} (redirects are not followed; fix the URL)`, false)
  }
  throw new OutboundError(detail, res.status === 429 || res.status >= 500)
}
