// Click enrichment on the real click path (issue 28): country, network and connection from the embedded IP
// data, region and city from a city database (SVC_GEOIP_CITY), CF-IPCountry behind a trusted proxy only,
// language from Accept-Language, OS and browser major versions, and the opt-in datacenter bot step. Each
// click is read back through GET /admin/api/clicks/:click_id, as an operator sees it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config'
import { createServer } from '../../src/server'
import { GeoIpError } from '../../src/lib/geoip'
import { get, startServer, TEST_ENV, type TestServer } from '../helpers/server'
import { svc } from '../helpers/cli'
import { writeMmdb } from '../helpers/mmdb'
import { cookieClickId, seeder, SERVER_TIMEOUT_MS } from './seed'

const CHROME_ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.122 Mobile Safari/537.36'
const SAFARI_IOS = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1'
const CHROME_WIN = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'

/** The enrichment fields of a click as GET /admin/api/clicks/:click_id shows them. */
const FIELDS = ['country', 'asn', 'as_org', 'connection', 'language', 'os_version', 'browser_version', 'region', 'city', 'bot_reason'] as const
const NOTHING = { country: null, asn: null, as_org: null, connection: 'unknown', region: null, city: null }

let dir: string
let proxied: TestServer
let direct: TestServer

/** One /c click with these headers; its enrichment fields as the admin API shows them. */
async function click(s: TestServer, headers: Record<string, string>) {
  const res = await get(`${s.base}/c/geo`, { 'user-agent': CHROME_WIN, ...headers })
  expect(res.status).toBe(302)
  const view = await s.api('GET', `/admin/api/clicks/${cookieClickId(res)}`)
  expect(view.status).toBe(200)
  return Object.fromEntries(FIELDS.map((f) => [f, view.body[f]]))
}

async function seed(s: TestServer) {
  const sd = seeder(s)
  await sd.campaign({ slug: 'geo', offers: [[await sd.offer('https://offer.example/'), 1]] })
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-enrich-'))
  writeFileSync(join(dir, 'city.mmdb'), writeMmdb([
    { net: '8.8.8.0/24', record: { city: { names: { en: 'Mountain View' } }, subdivisions: [{ iso_code: 'CA', names: { en: 'California' } }] } },
  ]))
  proxied = await startServer({ SVC_TRUST_PROXY: '1', SVC_GEOIP_CITY: join(dir, 'city.mmdb') })
  direct = await startServer()
  await seed(proxied)
  await seed(direct)
}, SERVER_TIMEOUT_MS)
afterAll(async () => {
  await proxied.destroy()
  await direct.destroy()
  rmSync(dir, { recursive: true, force: true })
})

describe('a click knows its country and network', () => {
  test('8.8.8.8 (through a trusted X-Forwarded-For): US, AS15169, Google, hosting; region and city from the city database', async () => {
    const res = await get(`${proxied.base}/c/geo`, { 'user-agent': CHROME_ANDROID, 'x-forwarded-for': '8.8.8.8', 'accept-language': 'de-CH,de;q=0.9,en;q=0.8' })
    const view = await proxied.api('GET', `/admin/api/clicks/${cookieClickId(res)}`)
    expect(view.status).toBe(200)
    expect(view.body).toEqual({
      click_id: cookieClickId(res), campaign_id: expect.any(Number), source_id: null, offer_id: expect.any(Number), landing_id: null,
      ip: '8.8.8.8', user_agent: CHROME_ANDROID, referrer: null,
      sub1: null, sub2: null, sub3: null, sub4: null, sub5: null, sub6: null, sub7: null, sub8: null, sub9: null, sub10: null,
      params: {}, bot_reason: null, excluded: false, is_unique: true, cost: 0,
      device_type: 'mobile', os: 'Android', browser: 'Chrome', referrer_domain: null,
      country: 'US', asn: 15169, as_org: 'Google LLC', connection: 'hosting', language: 'de', os_version: '14', browser_version: '126',
      region: 'California', city: 'Mountain View', path_id: null, path_trace: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    })
  })

  test('77.88.8.8: RU, AS13238, Yandex; outside the city file: no region or city', async () => {
    expect(await click(proxied, { 'x-forwarded-for': '77.88.8.8' })).toEqual({
      country: 'RU', asn: 13238, as_org: 'YANDEX LLC', connection: 'hosting', region: null, city: null,
      language: null, os_version: '10', browser_version: '126', bot_reason: null,
    })
  })

  test('an IPv6 address, and a residential network', async () => {
    expect(await click(proxied, { 'x-forwarded-for': '2001:4860:4860::8888' })).toMatchObject({ country: 'US', asn: 15169, as_org: 'Google LLC', connection: 'hosting' })
    expect(await click(proxied, { 'x-forwarded-for': '81.2.69.142' })).toMatchObject({ country: 'GB', asn: 20712, as_org: 'Andrews & Arnold Ltd', connection: 'residential' })
  })

  test('a private address has no country or network, connection unknown', async () => {
    expect(await click(proxied, { 'x-forwarded-for': '10.1.2.3' })).toMatchObject(NOTHING)
    expect(await click(proxied, { 'x-forwarded-for': 'fd00::1' })).toMatchObject(NOTHING)
  })

  test('without a trusted proxy the socket address counts: X-Forwarded-For and CF-IPCountry are ignored', async () => {
    expect(await click(direct, { 'x-forwarded-for': '8.8.8.8', 'cf-ipcountry': 'DE' })).toMatchObject(NOTHING) // 127.0.0.1
  })

  test('behind a trusted proxy a valid CF-IPCountry names the country; the network stays the IP data\'s', async () => {
    expect(await click(proxied, { 'x-forwarded-for': '8.8.8.8', 'cf-ipcountry': 'DE' })).toMatchObject({ country: 'DE', asn: 15169, connection: 'hosting' })
    expect(await click(proxied, { 'x-forwarded-for': '77.88.8.8', 'cf-ipcountry': 'ch' })).toMatchObject({ country: 'CH', asn: 13238 })
    expect(await click(proxied, { 'x-forwarded-for': '10.1.2.3', 'cf-ipcountry': 'FR' })).toMatchObject({ country: 'FR', asn: null, connection: 'unknown' })
    // XX (unknown), T1 (Tor) and anything that is not two letters leave the IP data's country.
    for (const bad of ['XX', 'T1', 'USA', '', 'D-']) {
      expect({ bad, ...(await click(proxied, { 'x-forwarded-for': '8.8.8.8', 'cf-ipcountry': bad })) }).toMatchObject({ bad, country: 'US' })
    }
  })
})

describe('language and versions', () => {
  test('the primary tag of the most preferred Accept-Language entry; null when there is none', async () => {
    const cases: Array<[string | undefined, string | null]> = [
      ['de-CH,de;q=0.9,en;q=0.8', 'de'],
      ['fr;q=0.5, EN-gb', 'en'],
      ['*;q=1, pt-BR;q=0.3', 'pt'],
      ['zh_TW', 'zh'],
      ['en;q=0, x-klingon, *', null],
      ['!!!', null],
      [undefined, null],
    ]
    for (const [header, language] of cases) {
      const got = await click(proxied, { 'x-forwarded-for': '81.2.69.142', ...(header === undefined ? {} : { 'accept-language': header }) })
      expect({ header, language: got.language }).toEqual({ header, language })
    }
  })

  test('iOS Safari 17.4: OS 17, browser 17', async () => {
    expect(await click(proxied, { 'x-forwarded-for': '81.2.69.142', 'user-agent': SAFARI_IOS })).toMatchObject({ os_version: '17', browser_version: '17' })
  })
})

describe('the datacenter bot step', () => {
  test('is off by default, and when turned on flags hosting networks only (reason datacenter)', async () => {
    expect((await proxied.api('GET', '/admin/api/settings')).body.bot_datacenter).toBe(false)
    expect((await click(proxied, { 'x-forwarded-for': '8.8.8.8' })).bot_reason).toBeNull()
    expect((await proxied.api('PUT', '/admin/api/settings', { bot_datacenter: true })).status).toBe(200)
    try {
      expect(await click(proxied, { 'x-forwarded-for': '8.8.8.8' })).toMatchObject({ bot_reason: 'datacenter', connection: 'hosting' })
      expect(await click(proxied, { 'x-forwarded-for': '2a02:6b8::feed:0ff' })).toMatchObject({ bot_reason: 'datacenter', country: 'RU' })
      expect(await click(proxied, { 'x-forwarded-for': '81.2.69.142' })).toMatchObject({ bot_reason: null, connection: 'residential' })
      expect(await click(proxied, { 'x-forwarded-for': '10.1.2.3' })).toMatchObject({ bot_reason: null, connection: 'unknown' })
    } finally {
      expect((await proxied.api('PUT', '/admin/api/settings', { bot_datacenter: false })).status).toBe(200)
    }
    expect((await click(proxied, { 'x-forwarded-for': '8.8.8.8' })).bot_reason).toBeNull()
  })

  test('the setting takes true or false only', async () => {
    const res = await proxied.api('PUT', '/admin/api/settings', { bot_datacenter: 'yes' })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ error: 'bot_datacenter: must be true or false' })
  })
})

describe('IP data that cannot be loaded stops the start', () => {
  test('createServer rejects with a GeoIpError naming the file', async () => {
    const missing = join(dir, 'missing.mmdb')
    const err = await createServer(loadConfig({ ...TEST_ENV, SVC_DATA_DIR: join(dir, 'data'), SVC_GEOIP_CITY: missing })).catch((e) => e)
    expect(err).toBeInstanceOf(GeoIpError)
    expect(err.message).toStartWith(`${missing}: cannot be read (`)
  })

  test('svc serve says so in one line and exits 1', () => {
    const r = svc(['serve'], { ...TEST_ENV, SVC_DATA_DIR: join(dir, 'cli-data'), SVC_GEOIP_DIR: join(dir, 'no-such-dir') })
    expect(r.code).toBe(1)
    expect(r.err).toBe(`error: ${join(dir, 'no-such-dir')}: has neither geo-whois-asn-country-ipv4.csv nor geo-whois-asn-country-ipv4-num.csv\n`)
  }, 30_000)
})
