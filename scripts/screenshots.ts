// npm run screenshots: the dashboard's main screens at desktop (1280 px) and phone (375 px) widths, as PNG
// files in docs/screenshots/ (shown in README). A throwaway server with a fortnight of demo data
// (scripts/dashboard/demo.ts), so the lists, the report and its chart have numbers. Needs Chromium (see README).
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Page } from 'playwright-core'
import { launchBrowser } from '../test/helpers/browser'
import { OWNER, startDemo, UA } from './dashboard/demo'

const OUT = resolve(import.meta.dir, '..', 'docs', 'screenshots')

const demo = await startDemo()
const browser = await launchBrowser()
try {
  const converted = (await demo.api('GET', '/conversions?limit=1')).items[0]?.click_id as string | undefined
  /** name, hash, what shows the screen is ready. */
  const screens: Array<[string, string, (page: Page) => Promise<unknown>]> = [
    ['campaigns', '#/campaigns?period=7d', (p) => p.locator('table[data-home] tr[data-campaign]').first().waitFor()],
    ['reports', '#/reports?group_by=sub3&period=7d&sort=cost&order=desc', (p) => p.locator('table[data-report] tr[data-row]').first().waitFor()],
    ['click', `#/click?id=${converted ?? ''}`, (p) => p.locator('ol[data-timeline] li').first().waitFor()],
    ['conversions', '#/conversions', (p) => p.getByRole('heading', { name: 'Conversions', level: 1 }).waitFor()],
    ['blocked-zones', '#/blocked-zones', (p) => p.getByRole('heading', { name: 'Blocked zones', level: 1 }).waitFor()],
    ['settings', '#/settings', (p) => p.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()],
  ]
  mkdirSync(OUT, { recursive: true })
  for (const [width, height, suffix] of [[1280, 860, 'desktop'], [375, 812, 'mobile']] as const) {
    const context = await browser.newContext({ viewport: { width, height }, userAgent: UA })
    const page = await context.newPage()
    await page.goto(`${demo.base}/admin`)
    await page.getByLabel('Email').fill(OWNER.email)
    await page.getByLabel('Password').fill(OWNER.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.locator('main#main').waitFor()
    for (const [name, hash, ready] of screens) {
      await page.goto(`${demo.base}/admin${hash}`)
      await ready(page)
      if (name === 'reports') await page.locator('.chart canvas').first().waitFor()
      await page.waitForTimeout(300)
      await page.screenshot({ path: join(OUT, `${name}-${suffix}.png`), fullPage: false })
      console.log(`wrote docs/screenshots/${name}-${suffix}.png`)
    }
    await context.close()
  }
} finally {
  await browser.close()
  await demo.stop()
}
