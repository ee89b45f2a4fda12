import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { bodySnippet, checkOutboundUrl, expectSuccess, outboundFetch, OutboundError } from '../../src/lib/outbound'
import { isNonPublicAddress } from '../../src/lib/ip'
import { startListener } from '../helpers/listener'

const strict = () => ({ allowPrivate: false, signal: AbortSignal.timeout(2000) })

async function refusal(url: string): Promise<OutboundError> {
  try {
    await checkOutboundUrl(url, strict())
  } catch (err) {
    expect(err).toBeInstanceOf(OutboundError)
    return err as OutboundError
  }
  throw new Error(`${url} was not refused`)
}

describe('SSRF guard (checkOutboundUrl)', () => {
  test.each([
    ['http://127.0.0.1/x', '127.0.0.1'],
    ['http://10.0.0.5/x', '10.0.0.5'],
    ['http://192.168.1.1/x', '192.168.1.1'],
    ['http://172.16.3.4/x', '172.16.3.4'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254'],
    ['http://100.64.0.1/', '100.64.0.1'],
    ['http://0.0.0.0/', '0.0.0.0'],
    ['http://2130706433/', '127.0.0.1'], // decimal form, normalised by the URL parser
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://[::1]/', '::1'],
    ['http://[fc00::1]/', 'fc00::1'],
    ['http://[fe80::1]/', 'fe80::1'],
    ['http://[::ffff:10.0.0.1]/', '::ffff:a00:1'],
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1'], // IPv4-mapped, hex form
    ['http://[::127.0.0.1]/', '::7f00:1'], // IPv4-compatible ::/96
    ['http://[::8.8.8.8]/', '::808:808'], // ::/96 is refused whatever IPv4 address it carries
    ['http://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1'], // NAT64
    ['http://[64:ff9b:1::a00:1]/', '64:ff9b:1::a00:1'], // local-use NAT64
    ['http://[2002:7f00:1::1]/', '2002:7f00:1::1'], // 6to4
    ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', '2001:0:4136:e378:8000:63bf:3fff:fdd2'], // Teredo
    ['http://[fec0::1]/', 'fec0::1'], // site-local
    ['http://[100::1]/', '100::1'], // discard
    ['http://[2001:db8::1]/', '2001:db8::1'], // documentation
    ['http://[ff02::1]/', 'ff02::1'], // multicast
    ['http://192.0.2.1/', '192.0.2.1'],
    ['http://198.51.100.7/', '198.51.100.7'],
    ['http://203.0.113.200/', '203.0.113.200'],
    ['http://198.18.0.1/', '198.18.0.1'],
    ['http://198.19.255.255/', '198.19.255.255'],
    ['http://255.255.255.255/', '255.255.255.255'],
  ])('refuses %s as a private address, not retryable', async (url, shown) => {
    const err = await refusal(url)
    expect(err.retryable).toBe(false)
    expect(err.message).toBe(`refused: ${shown} is a private address (set SVC_OUTBOUND_ALLOW_PRIVATE=1 to allow)`)
  })

  test.each(['http://localhost:8080/', 'http://LOCALHOST./', 'http://api.localhost/'])('refuses the loopback name %s', async (url) => {
    const err = await refusal(url)
    expect(err.retryable).toBe(false)
    expect(err.message).toMatch(/^refused: .*localhost is a loopback name \(set SVC_OUTBOUND_ALLOW_PRIVATE=1 to allow\)$/)
  })

  test.each([
    ['ftp://example.com/x', 'bad URL: only http and https are allowed, got ftp'],
    ['file:///etc/passwd', 'bad URL: only http and https are allowed, got file'],
    ['/relative/path', 'bad URL: "/relative/path" is not an absolute URL'],
    ['http://', 'bad URL: "http://" is not an absolute URL'],
  ])('refuses %s as a bad URL, not retryable', async (url, message) => {
    const err = await refusal(url)
    expect(err).toMatchObject({ retryable: false, message })
  })

  test('accepts a public literal address without any lookup', async () => {
    expect((await checkOutboundUrl('https://93.184.215.14/pb?x=1', strict())).href).toBe('https://93.184.215.14/pb?x=1')
  })

  test('public addresses next to the refused ranges pass', () => {
    for (const ip of ['8.8.8.8', '192.0.3.1', '198.17.255.255', '198.20.0.0', '203.0.114.1', '::ffff:8.8.8.8', '2606:4700::1111', '2003::1', '64:ff9c::1', '2001:db9::1', '101::1']) {
      expect({ ip, refused: isNonPublicAddress(ip) }).toEqual({ ip, refused: false })
    }
    for (const ip of ['unknown', '', '1.2.3', '::ffff:7f00:1', '::'] ) expect({ ip, refused: isNonPublicAddress(ip) }).toEqual({ ip, refused: true })
  })

  test('a name is refused when any address it resolves to is private (resolver stood in by the test)', async () => {
    const opts = { ...strict(), resolve: async () => ['93.184.215.14', '64:ff9b::a9fe:a9fe'] }
    const err = await checkOutboundUrl('https://mixed.example/pb', opts).catch((e) => e)
    expect(err).toMatchObject({ retryable: false, message: 'refused: mixed.example resolves to private address 64:ff9b::a9fe:a9fe (set SVC_OUTBOUND_ALLOW_PRIVATE=1 to allow)' })
  })

  test('with private targets allowed, loopback and localhost pass (still http/https only)', async () => {
    const opts = { allowPrivate: true, signal: AbortSignal.timeout(2000) }
    expect((await checkOutboundUrl('http://127.0.0.1:9/x', opts)).hostname).toBe('127.0.0.1')
    expect((await checkOutboundUrl('http://localhost:9/x', opts)).hostname).toBe('localhost')
    await expect(checkOutboundUrl('gopher://127.0.0.1/', opts)).rejects.toThrow('only http and https')
  })
})

describe('classifying answers (expectSuccess)', () => {
  test('2xx is a success named by its status', async () => {
    expect(await expectSuccess(new Response('ok'))).toBe('HTTP 200')
    expect(await expectSuccess(new Response(null, { status: 204 }))).toBe('HTTP 204')
  })

  test.each([[500, true], [502, true], [503, true], [429, true], [400, false], [401, false], [404, false], [410, false]])(
    'HTTP %d is retryable: %p',
    async (status, retryable) => {
      const res = new Response('some\n  detail', { status })
      const err = await expectSuccess(res).catch((e) => e)
      expect(err).toBeInstanceOf(OutboundError)
      expect(err).toMatchObject({ retryable, message: `HTTP ${status}: some detail` })
      expect(res.bodyUsed).toBe(true)
    },
  )

  test('a redirect is a non-retryable failure naming its target', async () => {
    const err = await expectSuccess(new Response(null, { status: 301, headers: { location: 'https://elsewhere.example/' } })).catch((e) => e)
    expect(err).toMatchObject({ retryable: false, message: 'HTTP 301 redirect to https://elsewhere.example/ (redirects are not followed; fix the URL)' })
  })

  test('a long error body is cut to a short snippet of 100 characters', async () => {
    const err = await expectSuccess(new Response('x'.repeat(100_000), { status: 500 })).catch((e) => e)
    expect(err.message).toBe(`HTTP 500: ${'x'.repeat(100)}`)
  })

  test('the snippet drops control characters and HTML: last_error is never a way to read a page', async () => {
    const snippet = (body: string, type = 'text/plain') => bodySnippet(new Response(body, { headers: { 'content-type': type } }))
    expect(await snippet('bad\u0000 \u001b[31mred\u001b[0m\r\nline\u202e2\u2028end')).toBe('bad [31mred [0m line 2 end')
    expect(await snippet('<html><body>secret admin page</body></html>', 'text/html; charset=utf-8')).toBe('')
    expect(await snippet('  <!doctype html><title>x</title>', 'text/plain')).toBe('')
    expect(await snippet('<?xml version="1.0"?><e>secret</e>', 'application/xml')).toBe('')
    expect(await snippet('error: <b>quota</b> exceeded', 'text/plain')).toBe('error: quota exceeded')
    expect(await snippet('é'.repeat(500))).toBe('é'.repeat(100))
    expect(await snippet('{"error":"no such campaign"}', 'application/json')).toBe('{"error":"no such campaign"}')
  })
})

describe('the connection goes to the address that passed the check (no second lookup)', () => {
  const fixtures = join(import.meta.dir, 'fixtures')

  test('over http: one lookup, the request reaches that address with the original Host header', async () => {
    const listener = startListener()
    try {
      const port = new URL(listener.base).port
      let lookups = 0
      // A second lookup would fail: fetch resolving ".test" itself would answer ENOTFOUND.
      const resolve = async () => (lookups++ === 0 ? ['127.0.0.1'] : ['10.9.9.9'])
      const res = await outboundFetch(`http://rebind.test:${port}/pb?x=1`, { headers: { 'user-agent': 'svc-test', host: 'forged.example' } }, {
        allowPrivate: true, signal: AbortSignal.timeout(2000), resolve,
      })
      expect(res.status).toBe(200)
      await res.text()
      expect(lookups).toBe(1)
      expect(listener.received[0]!.headers.get('host')).toBe(`rebind.test:${port}`)
      expect(listener.received[0]!.url.pathname + listener.received[0]!.url.search).toBe('/pb?x=1')
      expect(listener.received[0]!.headers.get('user-agent')).toBe('svc-test')
    } finally {
      listener.stop()
    }
  })

  test('over https: the certificate is checked against the name (SNI), while the connection goes to the checked address', async () => {
    const cert = await Bun.file(join(fixtures, 'pinned-test.crt')).text()
    const server = Bun.serve({
      port: 0, hostname: '127.0.0.1', reusePort: false,
      tls: { cert, key: await Bun.file(join(fixtures, 'pinned-test.key')).text() },
      fetch: (r) => new Response(`host=${r.headers.get('host')}`),
    })
    try {
      const opts = { allowPrivate: true, signal: AbortSignal.timeout(2000), resolve: async () => ['127.0.0.1'] }
      const res = await outboundFetch(`https://pinned.test:${server.port}/x`, { tls: { ca: cert } }, opts)
      expect(await res.text()).toBe(`host=pinned.test:${server.port}`)
      // The same address under a name the certificate does not carry fails verification.
      const err = await outboundFetch(`https://other.test:${server.port}/x`, { tls: { ca: cert } }, opts).catch((e) => e)
      expect(err).toBeInstanceOf(OutboundError)
      expect(err.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID')
    } finally {
      server.stop(true)
    }
  })

  test('a refused connection moves on to the next checked address', async () => {
    const listener = startListener()
    const port = Number(new URL(listener.base).port)
    try {
      // The listener is bound to 127.0.0.1 only: 127.0.0.2 refuses the connection on this port.
      const res = await outboundFetch(`http://two.test:${port}/`, {}, { allowPrivate: true, signal: AbortSignal.timeout(2000), resolve: async () => ['127.0.0.2', '127.0.0.1'] })
      expect(res.status).toBe(200)
      await res.text()
      expect(listener.received.length).toBe(1)
    } finally {
      listener.stop()
    }
  })
})
