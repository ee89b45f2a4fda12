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
  /** Bounds the DNS lookup and the request (the job loop passes AbortSignal.timeout). */
  signal: AbortSignal
}

const ALLOW_HINT = '(set SVC_OUTBOUND_ALLOW_PRIVATE=1 to allow)'

function refuse(message: string): never {
  throw new OutboundError(`refused: ${message} ${ALLOW_HINT}`, false)
}


/** Parses the URL and, unless private targets are allowed, checks every address its host resolves to. */
export async function checkOutboundUrl(raw: string, opts: OutboundOptions): Promise<URL> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new OutboundError(`bad URL: ${JSON.stringify(raw.slice(0, 200))} is not an absolute URL`, false)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError(`bad URL: only http and https are allowed, got ${url.protocol.replace(/:$/, '')}`, false)
  }
  if (opts.allowPrivate) return url
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost')) refuse(`${host} is a loopback name`)
  if (isIP(host)) {
    if (isNonPublicAddress(host)) refuse(`${host} is a private address`)
    return url
  }
  let addresses: Array<{ address: string }>
  try {
    addresses = await abortable(lookup(host, { all: true, verbatim: true }), opts.signal)
  } catch (err) {
    if (opts.signal.aborted) throw err
    const code = (err as { code?: string }).code ?? (err as Error).message
    // Usually a typo or a dead domain, but DNS also fails transiently; the attempt budget bounds retries.
    throw new OutboundError(`DNS lookup of ${host} failed: ${code}`, true)
  }
  const bad = addresses.find((a) => isNonPublicAddress(a.address))
  if (bad) refuse(`${host} resolves to private address ${bad.address}`)
  return url
}

/**
 * GET/POST through the guard. Redirects are never followed (a public URL could redirect to a private one).
 * Network failures become retryable OutboundErrors; a timeout rejects with the signal's TimeoutError.
 * DNS rebinding between the check and the connection is not prevented (Bun's fetch takes no resolver).
 */
export async function outboundFetch(raw: string, init: RequestInit, opts: OutboundOptions): Promise<Response> {
  const url = await checkOutboundUrl(raw, opts)
  try {
    return await fetch(url, { ...init, redirect: 'manual', signal: opts.signal })
  } catch (err) {
    if (opts.signal.aborted) throw err
    const e = err as { code?: string; message?: string }
    throw new OutboundError(`network error: ${e.code && !String(e.message).startsWith(e.code) ? `${e.code}: ` : ''}${e.message ?? String(err)}`, true)
  }
}

/** Reads at most `max` bytes of the body as text and cancels the rest, so sockets and memory are released. */
export async function bodySnippet(res: Response, max = 300): Promise<string> {
  if (!res.body) return ''
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    while (size < max) {
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
  const text = new TextDecoder().decode(Buffer.concat(chunks).subarray(0, max))
  return text.replace(/\s+/g, ' ').trim()
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
