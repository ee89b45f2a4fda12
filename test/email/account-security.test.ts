// Magic links under attack (issue 25, finding 4 and the Low magic-link findings), on either engine, through a
// real server and a real SMTP relay: a redirect cannot leave the allowed origins (whitespace and control
// characters refused, parsed as a browser would), an old link with a bad stored redirect still signs in and
// lands on /account (no 500, no token burnt for nothing); a stranger cannot spend an address's links (the
// per-address limit counts per requester, under an overall cap); known and unknown addresses do the same
// work (one durable job each); the per-IP limit counts an IPv6 client by its /64.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { decoded, startRelay, type Received } from '../helpers/smtp-relay'
import { testDb } from '../helpers/db'
import { eventually } from '../postback/seed'

let relay: Awaited<ReturnType<typeof startRelay>>
let s: TestServer
let ip = 0
const SUBSCRIBERS = ['redir@example.com', 'old@example.com', 'victim@example.com', 'bomb@example.com', 'six@example.com', 'known@example.com']

beforeAll(async () => {
  relay = await startRelay()
  s = await startServer({ SVC_SMTP_URL: relay.url, SVC_PUBLIC_URL: 'https://shop-track.example', SVC_JOBS_POLL_MS: '50', SVC_TRUST_PROXY: '1' })
  await s.api('PUT', '/admin/api/settings', { email_from: 'news@shop.example', cors_allowlist: ['https://shop.example'] })
  const list = (await s.api('POST', '/admin/api/email-lists', { name: 'Customers' })).body.id
  for (const email of SUBSCRIBERS) await s.api('POST', `/admin/api/email-lists/${list}/subscribers`, { email })
})
afterAll(async () => {
  await s?.destroy()
  relay?.close()
})

const ask = (body: unknown, from = `198.51.100.${++ip}`) =>
  fetch(`${s.base}/api/account/magic-link`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': from }, body: JSON.stringify(body),
  })
const mailsTo = (to: string) => relay.received.filter((m) => m.to[0] === to)
/** The link of the `count`-th mail to `to`, as a path on the test server. */
const linkFor = async (to: string, count = 1) => {
  const mail = await eventually(() => mailsTo(to).length >= count && mailsTo(to)[count - 1], 10_000, `mail ${count} to ${to}`)
  const url = /https:\/\/shop-track\.example(\/api\/account\/verify\?token=[A-Za-z0-9_-]{43})/.exec(decoded((mail as Received).raw))
  expect(url).not.toBeNull()
  return url![1]!
}
const open = (path: string) => fetch(`${s.base}${path}`, { redirect: 'manual' })
/** Waits until every account_link job has run (done or failed), then a little for their mails to arrive. */
const jobsSettled = async () => {
  await eventually(async () => (await testDb(s).get<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE kind IN ('account_link', 'email_send') AND status IN ('pending', 'running')"))!.n === 0 || undefined, 15_000, 'jobs to settle')
  await Bun.sleep(200)
}

describe('magic-link redirect', () => {
  test('whitespace and control characters are refused (browsers strip them: "/\\t/evil.example" became //evil.example)', async () => {
    for (const redirect of ['/\t/evil.example/phish', '/\n/x', '/\r/x', '/ /evil.example', '\t//evil.example', '/x\u0000', '/\u00a0/evil.example', '/\u2028/x', '/\u200b/evil.example', '/x\u007f']) {
      const r = await ask({ email: 'redir@example.com', redirect })
      expect({ redirect, status: r.status, body: await r.json() }).toEqual({ redirect, status: 400, body: { error: 'redirect: must not contain spaces or control characters' } })
    }
  })

  test('parsed against the service: only paths here, SVC_PUBLIC_URL\'s origin and the cors_allowlist origins', async () => {
    const bad = 'redirect: must be a path here (/…) or a URL on an origin of the cors_allowlist setting'
    for (const redirect of [
      '/.//evil.example/x', '/..//evil.example/', '//evil.example', '/\\evil.example', 'https:/\\evil.example', 'https://shop.example.evil.example/',
      'http://shop.example/', 'https://shop.example@evil.example/', 'https://user:pass@shop.example/', 'https://evil.example/', 'data:text/html,<script>alert(1)</script>', 'javascript:alert(1)',
      'https://shop-track.example:8443/', 'ftp://shop.example/',
    ]) {
      const r = await ask({ email: 'redir@example.com', redirect })
      expect({ redirect, status: r.status, body: await r.json() }).toEqual({ redirect, status: 400, body: { error: bad } })
    }
    await jobsSettled()
    expect(mailsTo('redir@example.com')).toHaveLength(0)

    // Allowed: a path here (stored as a path), the public URL's own origin, an allowlisted origin.
    const cases: Array<[string, string]> = [
      ['/orders/../account?tab=orders#top', '/account?tab=orders#top'],
      ['https://shop-track.example/welcome', 'https://shop-track.example/welcome'],
      ['https://SHOP.example/my-account?x=1', 'https://shop.example/my-account?x=1'],
    ]
    let n = 0
    for (const [redirect, location] of cases) {
      expect((await ask({ email: 'redir@example.com', redirect })).status).toBe(200)
      const res = await open(await linkFor('redir@example.com', ++n))
      expect({ redirect, status: res.status, location: res.headers.get('location') }).toEqual({ redirect, status: 302, location })
    }
  })

  test('a link whose stored redirect is not allowed (stored before these rules) signs in and lands on /account: no 500', async () => {
    const stored = ['/\n/x', '/\r/x', '/\t/evil.example/phish', '//evil.example/x', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)', '/caf\u00e9\u4e2d']
    for (let i = 0; i < stored.length; i++) {
      expect((await ask({ email: 'old@example.com' })).status).toBe(200)
      const path = await linkFor('old@example.com', i + 1)
      const hash = new Bun.CryptoHasher('sha256').update(new URL(`http://x${path}`).searchParams.get('token')!).digest('hex')
      await testDb(s).run('UPDATE customer_login_tokens SET redirect = $r WHERE token_hash = $h', { r: stored[i], h: hash })
      const res = await open(path)
      expect({ stored: stored[i], status: res.status, location: res.headers.get('location') }).toEqual({ stored: stored[i], status: 302, location: '/account' })
      const cookie = res.headers.get('set-cookie')!.split(';')[0]!
      expect(await (await fetch(`${s.base}/api/account/me`, { headers: { cookie } })).json()).toMatchObject({ email: 'old@example.com' })
    }
  })
})

describe('magic-link limits', () => {
  test('a stranger who spends 5 links an hour on an address does not stop its owner from getting a working link', async () => {
    for (let i = 0; i < 7; i++) expect((await ask({ email: 'victim@example.com' }, '203.0.113.7')).status).toBe(200)
    await jobsSettled()
    expect(mailsTo('victim@example.com')).toHaveLength(5)
    // The owner, from their own network, still gets a link, and it signs them in.
    expect((await ask({ email: 'victim@example.com' }, '192.0.2.55')).status).toBe(200)
    const res = await open(await linkFor('victim@example.com', 6))
    expect(res.status).toBe(302)
    expect(res.headers.get('set-cookie')).toStartWith('svc_customer_session=v1.')
  })

  test('at most 20 links an hour to one address whoever asks (mail bombing from many networks); an IPv6 /64 is one requester', async () => {
    for (let net = 1; net <= 5; net++) {
      for (let i = 0; i < 5; i++) expect((await ask({ email: 'bomb@example.com' }, `203.0.113.${100 + net}`)).status).toBe(200)
    }
    await jobsSettled()
    expect(mailsTo('bomb@example.com')).toHaveLength(20)
    // Six addresses of one IPv6 /64 count as one requester: five links.
    for (let i = 1; i <= 6; i++) expect((await ask({ email: 'six@example.com' }, `2001:db8:77:1::${i}`)).status).toBe(200)
    await jobsSettled()
    expect(mailsTo('six@example.com')).toHaveLength(5)
  })

  test('the per-IP limit (10 a minute) counts an IPv6 client by its /64, as login and /api/lead do', async () => {
    const codes: number[] = []
    for (let i = 1; i <= 10; i++) codes.push((await ask({ email: `nobody${i}@example.com` }, `2001:db8:aa:bb::${i.toString(16)}`)).status)
    const limited = await ask({ email: 'nobody11@example.com' }, '2001:db8:aa:bb:ffff:ffff:ffff:ffff')
    codes.push(limited.status)
    expect(codes).toEqual([...Array(10).fill(200), 429])
    expect(await limited.json()).toEqual({ error: 'too many requests' })
    expect((await ask({ email: 'nobody12@example.com' }, '2001:db8:aa:bc::1')).status).toBe(200)
  })
})

describe('magic-link timing', () => {
  test('a known and an unknown address do the same work in the request: one account_link job each, the same write', async () => {
    const db = testDb(s)
    const before = (await db.get<{ id: number }>('SELECT COALESCE(MAX(id), 0) AS id FROM jobs'))!.id
    const customersBefore = (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM customers'))!.n
    const known = await ask({ email: 'Known@Example.com', redirect: '/account?x=1' })
    const unknown = await ask({ email: 'Unknown-Person@Example.com', redirect: '/account?x=1' })
    expect([known.status, await known.json(), unknown.status, await unknown.json()]).toEqual([200, { ok: true }, 200, { ok: true }])
    // What each request wrote: one job row of the same kind, section and payload shape, nothing else of its own.
    const jobs = await db.all<{ id: number; kind: string; section: string; payload: string }>('SELECT id, kind, section, payload FROM jobs WHERE id > $before AND kind = $kind ORDER BY id', { before, kind: 'account_link' })
    expect(jobs.map((j) => ({ kind: j.kind, section: j.section, payload: JSON.parse(j.payload) }))).toEqual([
      { kind: 'account_link', section: 'email', payload: { email: 'known@example.com', redirect: '/account?x=1', base: 'https://shop-track.example' } },
      { kind: 'account_link', section: 'email', payload: { email: 'unknown-person@example.com', redirect: '/account?x=1', base: 'https://shop-track.example' } },
    ])
    // The lookup and the mail happen in the job: a link for the known address only.
    await jobsSettled()
    const results = await db.all<{ status: string; result: string }>('SELECT status, result FROM jobs WHERE id IN ($a, $b) ORDER BY id', { a: jobs[0]!.id, b: jobs[1]!.id })
    expect(results).toEqual([{ status: 'done', result: 'link mailed' }, { status: 'done', result: 'no link: the address is not known' }])
    expect(mailsTo('known@example.com')).toHaveLength(1)
    expect(mailsTo('unknown-person@example.com')).toHaveLength(0)
    expect((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM customers'))!.n).toBe(customersBefore + 1)
    expect((await open(await linkFor('known@example.com'))).headers.get('location')).toBe('/account?x=1')
  })
})

describe('without SVC_PUBLIC_URL', () => {
  test('no link is mailed (the Host header is the requester\'s to choose), the job says why, and settings warn', async () => {
    const local = await startServer({ SVC_SMTP_URL: relay.url, SVC_JOBS_POLL_MS: '50' })
    try {
      await local.api('PUT', '/admin/api/settings', { email_from: 'news@shop.example' })
      const list = (await local.api('POST', '/admin/api/email-lists', { name: 'Customers' })).body.id
      await local.api('POST', `/admin/api/email-lists/${list}/subscribers`, { email: 'hosted@example.com' })
      // The attack: a stranger asks for the customer's link with a Host of their own.
      const r = await fetch(`${local.base}/api/account/magic-link`, {
        method: 'POST', headers: { 'content-type': 'application/json', host: 'evil.example' }, body: JSON.stringify({ email: 'hosted@example.com' }),
      })
      expect(r.status).toBe(200)
      const job = await eventually(async () => {
        const row = await testDb(local).get<{ status: string; last_error: string | null }>("SELECT status, last_error FROM jobs WHERE kind = 'account_link'")
        return row && row.status === 'failed' ? row : undefined
      }, 15_000, 'the account_link job to fail')
      expect(job.last_error).toContain('SVC_PUBLIC_URL is not set')
      await Bun.sleep(200)
      expect(mailsTo('hosted@example.com')).toEqual([])
      const warnings = (await local.api('GET', '/admin/api/settings')).body.warnings as string[]
      expect(warnings.some((w) => w.startsWith('SVC_PUBLIC_URL is not set: customer magic links are not mailed'))).toBe(true)
    } finally {
      await local.destroy()
    }
  })
})
