// A local fake of payment processor B's API (PROTOCOLS.md §5), speaking its wire format:
//   POST /v1/oauth2/token                          Basic client_id:secret, form grant_type=client_credentials
//                                                  → {access_token, token_type:"Bearer", expires_in}
//   POST /v1/notifications/verify-webhook-signature Bearer token, JSON → {verification_status: SUCCESS|FAILURE}
// SUCCESS only when webhook_id is the configured one AND transmission_sig is the configured good value.
// Each endpoint can be told to fail: an HTTP status, hang (never answer), close the connection, or answer
// something unreadable. Tokens can be revoked (the next verification with one gets 401).

export type PayBFailure =
  | null
  /** Answer this status (with an error body). */
  | { status: number; body?: string }
  /** Never answer (until the fake stops). */
  | 'hang'
  /** Drop the connection without an answer. */
  | 'close'
  /** 200 with a body that is not the expected JSON. */
  | 'garbage'

export interface PayBApiRequest {
  authorization: string | null
  contentType: string | null
  /** The request body exactly as received. */
  body: string
}

export interface PayBApiOptions {
  /** client id → secret; the default is one client `client-1` / `secret-1`. */
  clients?: Record<string, string>
  webhookId?: string
  goodSig?: string
  /** Seconds, as the token answer's expires_in (default 32400). */
  expiresIn?: number
}

export interface PayBApi {
  base: string
  clients: Record<string, string>
  webhookId: string
  goodSig: string
  expiresIn: number
  tokenFailure: PayBFailure
  verifyFailure: PayBFailure
  /** Every token request (also refused ones). */
  tokenRequests: PayBApiRequest[]
  /** Every verification request (also refused ones); the body text exactly as received. */
  verifyRequests: PayBApiRequest[]
  /** Tokens issued so far, in order. */
  issued: string[]
  /** Every token issued so far stops working: the next verification with one gets 401. */
  revokeTokens(): void
  /** Every token is refused from now on, also new ones (credentials lacking the webhooks scope). */
  refuseAllTokens: boolean
  stop(): void
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })

export function startPayBApi(opts: PayBApiOptions = {}): PayBApi {
  const live = new Set<string>()
  const hanging: Array<() => void> = []
  let n = 0

  const fail = async (f: Exclude<PayBFailure, null>): Promise<Response> => {
    if (f === 'hang') {
      await new Promise<void>((resolve) => hanging.push(resolve))
      return new Response('late', { status: 500 })
    }
    // An errored body stream: Bun drops the connection (the client sees ECONNRESET).
    if (f === 'close') return new Response(new ReadableStream({ start(c) { c.error() } }))
    if (f === 'garbage') return new Response('<html>gateway</html>', { status: 200, headers: { 'content-type': 'text/html' } })
    return new Response(f.body ?? JSON.stringify({ name: 'INTERNAL_SERVICE_ERROR', message: 'fake failure' }), {
      status: f.status, headers: { 'content-type': 'application/json' },
    })
  }

  const api: PayBApi = {
    base: '',
    clients: opts.clients ?? { 'client-1': 'secret-1' },
    webhookId: opts.webhookId ?? 'WH-CONFIGURED-1',
    goodSig: opts.goodSig ?? 'good-signature==',
    expiresIn: opts.expiresIn ?? 32400,
    tokenFailure: null,
    verifyFailure: null,
    tokenRequests: [],
    verifyRequests: [],
    issued: [],
    refuseAllTokens: false,
    revokeTokens: () => live.clear(),
    stop: () => {
      for (const h of hanging.splice(0)) h()
      server.stop(true)
    },
  }

  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const path = new URL(req.url).pathname
      const rec: PayBApiRequest = {
        authorization: req.headers.get('authorization'), contentType: req.headers.get('content-type'), body: await req.text(),
      }
      if (req.method === 'POST' && path === '/v1/oauth2/token') {
        api.tokenRequests.push(rec)
        if (api.tokenFailure) return fail(api.tokenFailure)
        const m = /^Basic ([A-Za-z0-9+/=]+)$/.exec(rec.authorization ?? '')
        const pair = m ? Buffer.from(m[1], 'base64').toString('utf8') : ''
        const colon = pair.indexOf(':')
        const id = pair.slice(0, colon)
        if (colon < 0 || !Object.hasOwn(api.clients, id) || api.clients[id] !== pair.slice(colon + 1)) {
          return json(401, { error: 'invalid_client', error_description: 'Client Authentication failed' })
        }
        if (!rec.contentType?.startsWith('application/x-www-form-urlencoded') || new URLSearchParams(rec.body).get('grant_type') !== 'client_credentials') {
          return json(400, { error: 'unsupported_grant_type', error_description: 'Grant Type is NULL' })
        }
        const token = `A21AA-fake-token-${++n}-${crypto.randomUUID()}`
        live.add(token)
        api.issued.push(token)
        return json(200, { scope: 'https://uri.paypal.com/services/applications/webhooks', access_token: token, token_type: 'Bearer', app_id: 'APP-FAKE', expires_in: api.expiresIn, nonce: 'fake' })
      }
      if (req.method === 'POST' && path === '/v1/notifications/verify-webhook-signature') {
        api.verifyRequests.push(rec)
        if (api.verifyFailure) return fail(api.verifyFailure)
        const token = /^Bearer (\S+)$/.exec(rec.authorization ?? '')?.[1]
        if (!token || !live.has(token) || api.refuseAllTokens) {
          return json(401, { error: 'invalid_token', error_description: 'Token signature verification failed' })
        }
        let body: Record<string, unknown>
        try {
          body = JSON.parse(rec.body) as Record<string, unknown>
        } catch {
          return json(400, { name: 'MALFORMED_REQUEST', message: 'the request body is not JSON' })
        }
        if (!rec.contentType?.startsWith('application/json')) return json(415, { name: 'UNSUPPORTED_MEDIA_TYPE' })
        for (const k of ['auth_algo', 'cert_url', 'transmission_id', 'transmission_sig', 'transmission_time', 'webhook_id']) {
          if (typeof body[k] !== 'string') return json(400, { name: 'VALIDATION_ERROR', details: [{ field: k, issue: 'MISSING_REQUIRED_PARAMETER' }] })
        }
        if (!body.webhook_event || typeof body.webhook_event !== 'object') return json(400, { name: 'VALIDATION_ERROR', details: [{ field: 'webhook_event' }] })
        const ok = body.webhook_id === api.webhookId && body.transmission_sig === api.goodSig
        return json(200, { verification_status: ok ? 'SUCCESS' : 'FAILURE' })
      }
      return json(404, { name: 'RESOURCE_NOT_FOUND' })
    },
  })
  api.base = `http://127.0.0.1:${server.port}`
  return api
}
