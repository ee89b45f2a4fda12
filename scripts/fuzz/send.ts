// Sends a FuzzRequest and reports what came back: a status code, or what the connection did instead.
// Well-formed requests go through fetch(); the rest are written byte for byte to a raw loopback socket.
import { connect } from 'node:net'
import { fetchable, type FuzzRequest } from './generate'

/**
 * A status code, or `closed` (the server closed without answering), `stalled` (a client that sent less than
 * it announced gave up while the server still waited for the rest), `timeout`, `refused`, `error`.
 */
export type Outcome = number | 'closed' | 'stalled' | 'timeout' | 'refused' | 'error'

const TIMEOUT_MS = 10_000
/** A stalled client waits this long before giving up on its own request. */
const STALL_MS = 300

export async function send(base: URL, req: FuzzRequest): Promise<Outcome> {
  return fetchable(req) ? viaFetch(base, req) : viaSocket(base, req)
}

async function viaFetch(base: URL, req: FuzzRequest): Promise<Outcome> {
  try {
    const res = await fetch(base.origin + req.target, {
      method: req.method,
      headers: req.headers,
      body: req.body === undefined ? undefined : typeof req.body === 'string' ? Buffer.from(req.body, 'latin1') : req.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
      decompress: false,
    } as RequestInit)
    await res.arrayBuffer()
    return res.status
  } catch (err) {
    const name = (err as Error).name
    if (name === 'TimeoutError') return 'timeout'
    // fetch() refuses some requests itself (a URL it cannot parse, a header it rejects): send those raw.
    if (name === 'TypeError' || name === 'SyntaxError') return viaSocket(base, req)
    const code = (err as { code?: string }).code
    return code === 'ConnectionRefused' || code === 'ECONNREFUSED' ? 'refused' : 'closed'
  }
}

/** Writes the request as raw bytes on its own connection and reads the status line of the answer. */
export function viaSocket(base: URL, req: FuzzRequest): Promise<Outcome> {
  const head = [`${req.method} ${req.target} HTTP/1.1`, `host: ${base.host}`, ...req.headers.map(([k, v]) => `${k}: ${v}`), 'connection: close']
  const body = req.body === undefined ? '' : typeof req.body === 'string' ? req.body : String.fromCharCode(...req.body.subarray(0, 65536))
  const hasLength = req.headers.some(([k]) => k === 'content-length' || k === 'transfer-encoding')
  if (body && !hasLength) head.push(`content-length: ${Buffer.byteLength(body, 'latin1')}`)
  let bytes = Buffer.from(`${head.join('\r\n')}\r\n\r\n${body}`, 'latin1')
  const declared = Number(req.headers.find(([k]) => k === 'content-length')?.[1])
  const stall = req.stallAfterBytes !== undefined || declared > Buffer.byteLength(body, 'latin1')
  if (req.stallAfterBytes !== undefined) bytes = bytes.subarray(0, req.stallAfterBytes)

  return new Promise((resolve) => {
    let got = ''
    let done = false
    const socket = connect({ host: base.hostname, port: Number(base.port) })
    const end = (o: Outcome) => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resolve(o)
    }
    const timer = setTimeout(() => end(stall ? 'stalled' : 'timeout'), stall ? STALL_MS : TIMEOUT_MS)
    socket.on('connect', () => socket.write(bytes))
    socket.on('data', (chunk) => {
      got += chunk.toString('latin1')
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(got)
      if (m) end(Number(m[1]))
      else if (got.length > 64) end('error')
    })
    socket.on('error', (err) => end((err as { code?: string }).code === 'ECONNREFUSED' ? 'refused' : 'closed'))
    socket.on('close', () => end('closed'))
  })
}
