import { describe, expect, test } from 'bun:test'
import { checkOutboundUrl, expectSuccess, OutboundError } from '../../src/lib/outbound'

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

  test('a long error body is cut to a short snippet', async () => {
    const err = await expectSuccess(new Response('x'.repeat(100_000), { status: 500 })).catch((e) => e)
    expect(err.message).toBe(`HTTP 500: ${'x'.repeat(300)}`)
  })
})
