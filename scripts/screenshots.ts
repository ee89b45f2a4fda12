// npm run screenshots: the dashboard's main screens at desktop (1280 px) and mobile (375 px) widths, as PNG
// files in docs/screenshots/ (linked from README). A throwaway server with a little data: a campaign with
// clicks and a conversion, so the report and its chart have something to show. Needs Chromium (see README).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { launchBrowser } from '../test/helpers/browser'
import { loadConfig } from '../src/config'
import { createServer } from '../src/server'

const OUT = resolve(import.meta.dir, '..', 'docs', 'screenshots')
const OWNER = { email: 'owner@example.com', password: 'screenshot-password-1' }
const SCREENS = [
  ['campaigns', '#/campaigns', 'Campaigns'],
  ['reports', '#/reports', 'Reports'],
  ['conversions', '#/conversions', 'Conversions'],
  ['settings', '#/settings', 'Settings'],
  ['tokens', '#/tokens', 'Agent tokens'],
] as const

const dir = mkdtempSync(join(tmpdir(), 'svc-screens-'))
const server = await createServer(loadConfig({
  HOST: '127.0.0.1', PORT: '0', SVC_DATA_DIR: dir, SVC_SECRET: 'screenshot-secret-0123456789abcdef',
  SVC_ADMIN_EMAIL: OWNER.email, SVC_ADMIN_PASSWORD: OWNER.password,
}))
const { port } = await server.listen()
const base = `http://127.0.0.1:${port}`
const browser = await launchBrowser()
try {
  const login = await fetch(`${base}/admin/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER) })
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!
  const post = async (path: string, body: unknown) =>
    (await fetch(`${base}/admin/api${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<any>
  const source = await post('/sources', { name: 'Facebook Ads' })
  const offers = [await post('/offers', { name: 'VPN trial', slug: 'vpn-trial', url: 'https://vpn.example/?c={click_id}', payout: 12 }),
    await post('/offers', { name: 'VPN annual', slug: 'vpn-annual', url: 'https://vpn.example/annual?c={click_id}', payout: 40 })]
  await post('/campaigns', { name: 'VPN / Facebook / US', slug: 'vpn-fb-us', source_id: source.id, offers: offers.map((o, i) => ({ offer_id: o.id, weight: i ? 100 : 300 })) })
  const ua = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36'
  for (let i = 0; i < 40; i++) {
    const r = await fetch(`${base}/c/vpn-fb-us?sub1=ad${i % 4}`, { redirect: 'manual', headers: { 'user-agent': ua, 'x-forwarded-for': `203.0.113.${i}` } })
    const id = /c=([0-9a-f-]{36})/.exec(r.headers.get('location') ?? '')?.[1]
    if (id && i % 5 === 0) await fetch(`${base}/postback?subid=${id}&tid=t${i}`)
  }
  await fetch(`${base}/postback?subid=00000000-0000-4000-8000-000000000000&payout=5`) // a postback problem to show
  await post('/tokens', { name: 'claude-desktop', scopes: ['campaigns:read', 'reports:read'] })

  mkdirSync(OUT, { recursive: true })
  for (const [width, height, suffix] of [[1280, 860, 'desktop'], [375, 812, 'mobile']] as const) {
    const context = await browser.newContext({ viewport: { width, height }, userAgent: ua })
    const page = await context.newPage()
    await page.goto(`${base}/admin`)
    await page.getByLabel('Email').fill(OWNER.email)
    await page.getByLabel('Password').fill(OWNER.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Campaigns' }).waitFor()
    for (const [name, hash, heading] of SCREENS) {
      await page.goto(`${base}/admin${hash}`)
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor()
      if (name === 'reports') await page.locator('.chart canvas').first().waitFor()
      await page.screenshot({ path: join(OUT, `${name}-${suffix}.png`), fullPage: true })
      console.log(`wrote docs/screenshots/${name}-${suffix}.png`)
    }
    await context.close()
  }
} finally {
  await browser.close()
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
}
