// Auto-refresh of a list with numbers: every 60 s while the tab is visible and the screen is on show (a
// hidden tab catches up when it comes back), a toggle to stop it, and the time of the last update.
import { h } from '../../dom'

export const REFRESH_MS = 60_000

export function autoRefresh(opts: { on: boolean; tz: string; reload: () => Promise<void>; onToggle: (on: boolean) => void }): { el: HTMLElement; updated: () => void; start: (screen: Element) => void } {
  const toggle = h('input', { type: 'checkbox', name: 'auto_refresh', checked: opts.on })
  const stamp = h('small', { class: 'muted', 'data-updated': '', role: 'status' })
  const clock = new Intl.DateTimeFormat('en-GB', { timeZone: opts.tz, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
  let last = Date.now()
  let busy = false
  const run = async () => {
    if (busy) return
    busy = true
    try { await opts.reload() } catch (err) { stamp.textContent = `Update failed: ${(err as Error).message}` } finally { busy = false }
  }
  const updated = () => { last = Date.now(); stamp.textContent = `Updated ${clock.format(last)}` }
  toggle.addEventListener('change', () => opts.onToggle(toggle.checked))
  const start = (screen: Element) => {
    const due = () => toggle.checked && document.visibilityState === 'visible' && Date.now() - last >= REFRESH_MS
    const timer = setInterval(() => {
      // The screen was left (another route rendered): stop for good.
      if (!screen.isConnected) { clearInterval(timer); document.removeEventListener('visibilitychange', onVisible); return }
      if (due()) void run()
    }, 5_000)
    const onVisible = () => { if (screen.isConnected && due()) void run() }
    document.addEventListener('visibilitychange', onVisible)
  }
  const el = h('span', { class: 'refresh' },
    h('label', {}, toggle, ' Auto-refresh'), ' ',
    h('button', { type: 'button', class: 'small', onclick: () => void run() }, 'Refresh'), ' ', stamp)
  return { el, updated, start }
}
