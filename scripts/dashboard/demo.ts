// A throwaway server with a media buyer's fortnight in it, for `npm run screenshots` and
// `npm run bench:dashboard`: two campaigns on one pop source, 221 zones in sub3, clicks over 14 local days
// (imported with their past times, as the report tests do, so the rollups count them), conversions through
// real /postback requests, a CPC cost on every click. The shape of the issue-30 walkthrough: ~3,800 clicks,
// 221 zones, ~74 postbacks.
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config'
import { createServer } from '../../src/server'
import { newClick } from '../../src/tracking/store/click'

export const OWNER = { email: 'owner@example.com', password: 'screenshot-password-1' }
export const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36'

export interface Demo {
  base: string
  cookie: string
  api: (method: string, path: string, body?: unknown) => Promise<any>
  stop: () => Promise<void>
}

/** Deterministic pseudo-random numbers (the same fortnight every run). */
function rng(seed: number) {
  let s = seed >>> 0
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32)
}

export async function startDemo(opts: { clicks?: number } = {}): Promise<Demo> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-demo-'))
  const server = await createServer(loadConfig({
    HOST: '127.0.0.1', PORT: '0', SVC_DATA_DIR: dir, SVC_SECRET: 'screenshot-secret-0123456789abcdef',
    SVC_ADMIN_EMAIL: OWNER.email, SVC_ADMIN_PASSWORD: OWNER.password,
  }))
  const { port } = await server.listen()
  const base = `http://127.0.0.1:${port}`
  const login = await fetch(`${base}/admin/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER) })
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/admin/api${path}`, { method, headers: { cookie, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    const text = await res.text()
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`)
    return text ? JSON.parse(text) : null
  }

  const source = await api('POST', '/sources', { name: 'PopNet (zones in sub3)' })
  const search = await api('POST', '/sources', { name: 'Search ads' })
  const offers = [
    await api('POST', '/offers', { name: 'VPN trial', slug: 'vpn-trial', url: 'https://vpn.example/?c={click_id}', payout: 12 }),
    await api('POST', '/offers', { name: 'VPN annual', slug: 'vpn-annual', url: 'https://vpn.example/annual?c={click_id}', payout: 40 }),
    await api('POST', '/offers', { name: 'Antivirus', slug: 'antivirus', url: 'https://av.example/?c={click_id}', payout: 9 }),
  ]
  const campaigns = [
    await api('POST', '/campaigns', { name: 'VPN / PopNet / US', slug: 'vpn-pop-us', source_id: source.id, cost_model: 'cpc', cpc: 0.3,
      offers: [{ offer_id: offers[0].id, weight: 300 }, { offer_id: offers[1].id, weight: 100 }] }),
    await api('POST', '/campaigns', { name: 'Antivirus / Search / DE', slug: 'av-search-de', source_id: search.id, cost_model: 'cpc', cpc: 0.45,
      offers: [{ offer_id: offers[2].id, weight: 100 }] }),
  ]

  // 14 local days of clicks (UTC days: the demo's instance time zone is UTC), more on recent days.
  const random = rng(30)
  const total = opts.clicks ?? 3_810
  const now = Date.now()
  const countries = ['US', 'US', 'US', 'CA', 'GB', 'DE', 'DE', 'FR', 'BR', 'IN']
  const devices = ['mobile', 'mobile', 'desktop', 'tablet']
  const oses = ['Android', 'iOS', 'Windows', 'macOS']
  const batch = []
  const converting: Array<[string, number]> = []
  for (let i = 0; i < total; i++) {
    const pop = random() < 0.8
    const campaign = pop ? campaigns[0] : campaigns[1]
    const offer = pop ? (random() < 0.75 ? offers[0] : offers[1]) : offers[2]
    const zone = `z${1000 + Math.floor(random() ** 1.6 * 221)}`
    const at = now - Math.floor(random() ** 0.7 * 14 * 86_400_000)
    const clickId = randomUUID()
    batch.push(newClick({
      clickId, campaignId: campaign.id, sourceId: campaign.source_id, offerId: offer.id, createdAt: at, ip: `203.0.113.${i % 250}`,
      userAgent: UA, sub1: `ad${i % 6}`, sub3: pop ? zone : null, isUnique: random() < 0.85, cost: pop ? 0.3 : 0.45,
      country: countries[Math.floor(random() * countries.length)]!, deviceType: devices[i % devices.length]!, os: oses[i % oses.length]!,
      browser: 'Chrome', browserVersion: '140',
    }))
    // Better zones convert more: the first 40 zone numbers hold most conversions.
    const good = pop ? Number(zone.slice(1)) < 1040 : true
    if (random() < (good ? 0.06 : 0.008)) converting.push([clickId, at])
  }
  for (let i = 0; i < batch.length; i += 500) await server.clicks.import(batch.slice(i, i + 500))
  // Each conversion dated 20 minutes after its click (or now, for the latest clicks), as a network reports it.
  for (const [id, at] of converting.slice(0, 74)) {
    const date = new Date(Math.min(at + 20 * 60_000, Date.now())).toISOString()
    await (await fetch(`${base}/postback?subid=${id}&tid=t-${id.slice(0, 8)}&date=${encodeURIComponent(date)}`)).arrayBuffer()
  }
  // A postback problem, so the conversions screen has one to show.
  await (await fetch(`${base}/postback?subid=00000000-0000-4000-8000-000000000000&payout=5`)).arrayBuffer()
  await api('POST', '/tokens', { name: 'claude-desktop', scopes: ['campaigns:read', 'reports:read'] })

  return {
    base, cookie, api,
    stop: async () => {
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
