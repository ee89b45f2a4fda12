// npm run bench:dashboard: how fast the cockpit answers in a real Chromium (navigation timings), on the demo
// fortnight (scripts/dashboard/demo.ts: ~3,800 clicks, 221 zones). Each sample is a cold page (new browser
// context: empty cache) signed in by cookie:
//   first screen  — from navigation start to the home list's first campaign row with its numbers;
//   report        — from navigation start to a 221-row sub3 report's first row (URL state: the report opens itself);
// beside the baselines measured in the same run: the page's own load (responseEnd of the document, the
// script evaluated: DOMContentLoaded) and the API round trips the screens wait for, fetched by the same page.
// Also the first screen's transfer size (the served script and CSS, gzipped as they go over the wire).
import { gzipSync } from 'node:zlib'
import { launchBrowser } from '../test/helpers/browser'
import { startDemo } from './dashboard/demo'

const SAMPLES = Number(process.env.BENCH_DASHBOARD_SAMPLES ?? 7)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const ms = (x: number) => `${x.toFixed(0)} ms`

const demo = await startDemo()
const browser = await launchBrowser()
try {
  const cookie = demo.cookie.split('=')
  const results: Record<string, number[]> = { dcl: [], home: [], homeApi: [], report: [], reportApi: [] }
  for (let i = 0; i < SAMPLES; i++) {
    for (const [screen, hash, selector, apiPath] of [
      ['home', '#/campaigns?period=7d', 'table[data-home] tr[data-campaign]', '/admin/api/reports?group_by=campaign&limit=1000'],
      ['report', '#/reports?group_by=sub3&period=30d', 'table[data-report] tr[data-row]', '/admin/api/reports?group_by=sub3&limit=100'],
    ] as const) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
      await context.addCookies([{ name: cookie[0]!, value: cookie.slice(1).join('='), url: demo.base }])
      const page = await context.newPage()
      // The moment the row is in the DOM, noted by the page itself (Playwright's polling would add its own delay).
      await page.addInitScript((sel) => {
        const w = window as unknown as { __ready?: number }
        new MutationObserver((_, obs) => {
          if (w.__ready === undefined && document.querySelector(sel)) { w.__ready = performance.now(); obs.disconnect() }
        }).observe(document, { childList: true, subtree: true })
      }, selector)
      await page.goto(`${demo.base}/admin${hash}`)
      await page.locator(selector).first().waitFor({ timeout: 30_000 })
      const t = await page.evaluate(() => (window as unknown as { __ready: number }).__ready)
      const nav = await page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventEnd)
      // The API answer the screen needed, fetched again by the same page (warm server, warm connection).
      const api = await page.evaluate(async (path) => { const t0 = performance.now(); await (await fetch(path)).text(); return performance.now() - t0 }, apiPath)
      results[screen]!.push(t)
      results[`${screen}Api`]!.push(api)
      if (screen === 'home') results.dcl!.push(nav)
      await context.close()
    }
  }
  // Transfer size of the first screen: /admin and the assets it links, gzipped.
  const html = await (await fetch(`${demo.base}/admin`)).text()
  const assets = [...html.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => m[1]!)
  let raw = html.length
  let gz = gzipSync(html).length
  for (const a of assets) {
    const body = new Uint8Array(await (await fetch(new URL(a, `${demo.base}/admin`))).arrayBuffer())
    raw += body.length
    gz += gzipSync(body).length
  }
  console.log(`dashboard in Chromium, ${SAMPLES} cold pages each (median):`)
  console.log(`  page loaded (DOMContentLoaded)        ${ms(median(results.dcl!))}`)
  console.log(`  first screen (home list with numbers) ${ms(median(results.home!))}   its report API call alone: ${ms(median(results.homeApi!))}`)
  console.log(`  report with data (221 zones, sub3)    ${ms(median(results.report!))}   its report API call alone: ${ms(median(results.reportApi!))}`)
  console.log(`  first screen transfer: ${(raw / 1024).toFixed(0)} KB, ${(gz / 1024).toFixed(0)} KB gzipped (${assets.length} assets + the page)`)
} finally {
  await browser.close()
  await demo.stop()
}
