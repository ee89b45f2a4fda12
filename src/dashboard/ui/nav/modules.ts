// Which optional modules an instance uses (issue 30): the menu hides Email, Commerce and the landings' Leads
// while they hold nothing, so a tracker-only instance sees a short menu. Read in the browser with `?limit=1`
// list calls over the collections the user may read (one parallel round trip per page load, not a server
// route: each answer already follows the user's permissions, and no SQL outside the features' stores is
// needed). A module whose check fails counts as used: nothing is hidden by an error. "Show all modules"
// (remembered in localStorage) skips the check; a direct URL to a hidden module's screen always works.
import { api, can, type Me } from '../api'

export type Module = 'email' | 'commerce' | 'landings'
export type ModuleUse = Record<Module, boolean>

/** The collections whose first row says a module is in use, with the section that may read them. */
const EVIDENCE: Record<Module, { section: string; paths: string[] }> = {
  email: { section: 'email', paths: ['/email-lists', '/email-triggers', '/automations'] },
  commerce: { section: 'commerce', paths: ['/products', '/payment-accounts', '/orders', '/webhook-events'] },
  landings: { section: 'landings', paths: ['/landings', '/leads'] },
}
export const MODULES = Object.keys(EVIDENCE) as Module[]

const SHOW_ALL_KEY = 'svc.nav.show-all-modules'

export function showAllModules(): boolean {
  try { return localStorage.getItem(SHOW_ALL_KEY) === '1' } catch { return false }
}

export function setShowAllModules(on: boolean): void {
  try {
    if (on) localStorage.setItem(SHOW_ALL_KEY, '1')
    else localStorage.removeItem(SHOW_ALL_KEY)
  } catch { /* storage refused (private mode): the toggle lasts for the page */ }
}

async function hasRows(path: string): Promise<boolean> {
  try {
    const page = await api<{ items: unknown[] }>('GET', `${path}?limit=1`)
    return page.items.length > 0
  } catch {
    return true
  }
}

async function check(me: Me, module: Module): Promise<boolean> {
  const { section, paths } = EVIDENCE[module]
  // A section the user cannot read is not in their menu anyway: no request.
  if (!can(me, section, 'read')) return false
  return (await Promise.all(paths.map(hasRows))).some(Boolean)
}

/** The modules' use, cached per page load; forget() a module to read it again on the next get(). */
export class ModuleUsage {
  private known = new Map<Module, Promise<boolean>>()
  /** The answers already in: the menu is drawn from them at once, and again when the rest arrive. */
  private settled = new Map<Module, boolean>()

  async get(me: Me): Promise<ModuleUse> {
    const out = {} as ModuleUse
    await Promise.all(MODULES.map(async (m) => {
      let seen = this.known.get(m)
      if (!seen) {
        const asked = check(me, m)
        this.known.set(m, (seen = asked))
        void asked.then((used) => { if (this.known.get(m) === asked) this.settled.set(m, used) })
      }
      out[m] = await seen
    }))
    return out
  }

  /** What is known without waiting: a module not checked yet counts as unused (its links appear when it answers). */
  peek(): ModuleUse {
    return Object.fromEntries(MODULES.map((m) => [m, this.settled.get(m) ?? false])) as ModuleUse
  }

  /** Every module answered: peek() is the whole truth. */
  complete(): boolean {
    return MODULES.every((m) => this.settled.has(m))
  }

  forget(module?: Module): void {
    if (module) { this.known.delete(module); this.settled.delete(module) } else { this.known.clear(); this.settled.clear() }
  }
}
