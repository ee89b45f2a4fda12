// Unsigned postbacks by default: the spec's rule stays (a signature only with postback_secret), but the
// operator is warned at every start and in GET /admin/api/settings, a short secret is refused, and
// postback_ip_allowlist restricts where conversions may come from.
import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { addClick, conversionsOf, lastError, postback, seedCatalog } from '../postback/seed'

let s: TestServer
beforeAll(async () => { s = await startServer({ SVC_TRUST_PROXY: '1' }) })
afterAll(() => s.destroy())

const UNSIGNED_WARNING = 'postback_secret is not set: postbacks are unsigned and anyone who opens a tracking link can post back their own click with any payout. ' +
  "Set postback_secret (16 characters or more) and sign postbacks, and/or set postback_ip_allowlist to your advertisers' servers."

describe('warnings while no postback_secret is set', () => {
  test('GET /admin/api/settings lists the warning in the read-only "warnings" key, next to the unchanged keys', async () => {
    const res = await s.api('GET', '/admin/api/settings')
    expect(res.status).toBe(200)
    expect(res.body.warnings).toEqual([UNSIGNED_WARNING])
    expect(res.body.postback_secret).toBeNull()
    expect(res.body.postback_ip_allowlist).toEqual([])
  })

  test('the warning goes once a secret is set, and writing the view back (warnings included) is accepted', async () => {
    const set = await s.api('PUT', '/admin/api/settings', { postback_secret: 'sixteen-chars-ok' })
    expect(set.status).toBe(200)
    expect(set.body.warnings).toEqual([])
    const again = await s.api('PUT', '/admin/api/settings', { ...set.body, warnings: ['anything'] })
    expect(again.status).toBe(200)
    expect(again.body.warnings).toEqual([])
    expect(s.ctx.settings.get('postback_secret')).toBe('sixteen-chars-ok')
    await s.api('PUT', '/admin/api/settings', { postback_secret: null })
    expect((await s.api('GET', '/admin/api/settings')).body.warnings).toEqual([UNSIGNED_WARNING])
  })

  test('with an allowlist but no secret, the warning says the allowlist limits the senders', async () => {
    await s.api('PUT', '/admin/api/settings', { postback_ip_allowlist: ['192.0.2.0/24'] })
    try {
      const [w] = (await s.api('GET', '/admin/api/settings')).body.warnings
      expect(w).toStartWith('postback_secret is not set: postbacks are unsigned and postback_ip_allowlist limits where they may come from.')
    } finally {
      await s.api('PUT', '/admin/api/settings', { postback_ip_allowlist: [] })
    }
  })

  test('every start logs a warning line while no secret is set, and none once it is', async () => {
    // log.warn writes one line to stderr (console.error), e.g. "2026-… WARN  postback_secret is not set: …".
    const warn = spyOn(console, 'error')
    try {
      const other = await startServer()
      expect(warn.mock.calls.map((c) => String(c[0])).filter((l) => / WARN  /.test(l) && l.endsWith(UNSIGNED_WARNING))).toHaveLength(1)
      await other.api('PUT', '/admin/api/settings', { postback_secret: 'a-long-enough-secret' })
      await other.stop()
      warn.mockClear()
      const restarted = await startServer({}, other.dataDir)
      expect(warn.mock.calls.filter((c) => String(c[0]).includes('postback_secret is not set'))).toEqual([])
      await restarted.destroy()
    } finally {
      warn.mockRestore()
    }
  })
})

describe('postback_secret length', () => {
  test('a secret under 16 characters is refused with 400 naming the key; 16 is enough', async () => {
    for (const secret of ['short', 'fifteen-chars-x']) {
      const res = await s.api('PUT', '/admin/api/settings', { postback_secret: secret })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ error: 'postback_secret: must be at least 16 characters (a short secret can be guessed)' })
    }
    expect(s.ctx.settings.get('postback_secret')).toBeNull()
    const ok = await s.api('PUT', '/admin/api/settings', { postback_secret: 'x'.repeat(16) })
    expect(ok.status).toBe(200)
    await s.api('PUT', '/admin/api/settings', { postback_secret: null })
  })
})

describe('postback_ip_allowlist', () => {
  test('validates entries as addresses or CIDR ranges, naming the key and the entry', async () => {
    const bad = await s.api('PUT', '/admin/api/settings', { postback_ip_allowlist: ['203.0.113.0/24', 'advertiser.example'] })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toBe('postback_ip_allowlist: entry 2 "advertiser.example" is not an IPv4 or IPv6 address')
    expect((await s.api('PUT', '/admin/api/settings', { postback_ip_allowlist: '203.0.113.0/24' })).status).toBe(400)
  })

  test('a postback from an address outside the list answers 200 OK, records nothing and leaves an ip_not_allowed row', async () => {
    const c = await seedCatalog(s, { payout: 3 })
    const click = await addClick(s, c)
    await s.api('PUT', '/admin/api/settings', { postback_ip_allowlist: ['203.0.113.0/24', '2001:db8:5::/48'] })
    try {
      const refused = await postback(s, `subid=${click}&payout=999999999999`, { 'x-forwarded-for': '198.51.100.9' })
      expect(refused.status).toBe(200)
      expect(await refused.text()).toBe('OK')
      expect(await conversionsOf(s, click)).toEqual([])
      expect(await lastError(s)).toMatchObject({ reason: 'ip_not_allowed', click_id: null, ip: '198.51.100.9', query: `subid=${click}&payout=999999999999` })
      const listed = await s.api('GET', '/admin/api/postback-errors?reason=ip_not_allowed')
      expect(listed.status).toBe(200)
      expect(listed.body.items[0]).toMatchObject({ reason: 'ip_not_allowed', ip: '198.51.100.9' })

      const fromV6 = await postback(s, `subid=${click}&payout=2`, { 'x-forwarded-for': '2001:db8:5:1::7' })
      expect(await fromV6.text()).toBe('OK')
      const fromV4 = await postback(s, `subid=${click}&payout=5`, { 'x-forwarded-for': '::ffff:203.0.113.40' })
      expect(await fromV4.text()).toBe('OK')
      expect((await conversionsOf(s, click)).map((r) => r.revenue)).toEqual([2, 5])
    } finally {
      await s.api('PUT', '/admin/api/settings', { postback_ip_allowlist: [] })
    }
    // Empty again: any address.
    await postback(s, `subid=${click}&payout=1`, { 'x-forwarded-for': '198.51.100.9' })
    expect((await conversionsOf(s, click)).length).toBe(3)
  })
})
