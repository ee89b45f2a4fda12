// A real headless Chromium for the tests of the landing pages' browser scripts: Debian's `chromium`
// package, driven by playwright-core (which downloads no browser of its own).
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
import { afterTestProcess } from './reaper'

/** Where a Chromium is looked for, in order ($SVC_CHROMIUM first when set). */
export function chromiumCandidates(): string[] {
  const fromEnv = process.env.SVC_CHROMIUM
  return [...(fromEnv ? [fromEnv] : []), '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']
}

/** The Chromium executable to use, or null when there is none. */
export function findChromium(): string | null {
  return chromiumCandidates().find((path) => existsSync(path)) ?? null
}

export function browserAvailable(): boolean {
  return findChromium() !== null
}

export const NO_CHROMIUM_MESSAGE =
  'No Chromium found for the browser tests (looked at ' +
  '$SVC_CHROMIUM, /usr/bin/chromium, /usr/bin/chromium-browser, /usr/bin/google-chrome). ' +
  'Install the Debian package `chromium` (apt-get install chromium) or set SVC_CHROMIUM to a Chromium/Chrome executable.'

/** Pids of this process's direct children whose command line mentions chrom(e|ium). */
function chromiumChildren(): Set<number> {
  const found = new Set<number>()
  let entries: string[] = []
  try { entries = readdirSync('/proc') } catch { return found }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid !== process.pid) continue
      if (/chrom/i.test(readFileSync(`/proc/${entry}/cmdline`, 'utf8'))) found.add(Number(entry))
    } catch { /* gone meanwhile */ }
  }
  return found
}

/**
 * Launches headless Chromium (`--no-sandbox`: the tests may run as root). Throws NO_CHROMIUM_MESSAGE when
 * there is none. Close it in afterAll; should the test process be killed first, the browser (a process group
 * leader, as Playwright starts it) is SIGKILLed with its renderers once the test process has ended.
 */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = findChromium()
  if (!executablePath) throw new Error(NO_CHROMIUM_MESSAGE)
  const before = chromiumChildren()
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] })
  for (const pid of chromiumChildren()) {
    if (before.has(pid)) continue
    afterTestProcess(`grep -q chrom /proc/${pid}/cmdline 2>/dev/null && { kill -KILL -- -${pid} || kill -KILL ${pid}; } >/dev/null 2>&1`)
  }
  return browser
}

/** Opens the dashboard at `base` in `page` and signs in as `who` (the form, as a person would). */
export async function signIn(page: import('playwright-core').Page, base: string, who: { email: string; password: string }): Promise<void> {
  await page.goto(`${base}/admin`)
  await page.getByLabel('Email').fill(who.email)
  await page.getByLabel('Password').fill(who.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}
