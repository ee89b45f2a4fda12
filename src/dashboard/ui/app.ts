// The svc dashboard: a small single-page app over the admin API (hash routes, so the server serves one
// page at /admin and every /admin/api path stays the API's). Screens follow the user's section permissions.
import { all, api, ApiError, can, whenSignedOut, type Me } from './api'
import { h, labelTablesUnder, mount } from './dom'
import { leftOut, menu, readable, type MenuState, type Screen } from './nav/menu'
import { ModuleUsage, setShowAllModules, showAllModules } from './nav/modules'
import { Palette } from './nav/palette'
import { loginView } from './views/login'
import { firstRunView } from './views/first-run'
import { campaignsView } from './views/campaigns'
import { ruleSetsView } from './views/rule-sets'
import { reportsView } from './views/reports'
import { tokensView } from './views/tokens'
import { conversionsView } from './views/conversions'
import { catalogView, EMAIL_LISTS, EMAIL_TRIGGERS, LANDINGS, OFFERS, PAYMENT_ACCOUNTS, PRODUCTS, SOURCES } from './views/catalog'
import { LEADS, ORDERS, OUTBOX, recordsView, SUBSCRIPTIONS, WEBHOOK_EVENTS } from './views/records'
import { subscribersView } from './views/subscribers'
import { postbackSetupView } from './views/postback-setup'
import { automationsView } from './views/automations'
import { settingsView } from './views/settings'
import { usersView } from './views/users'
import { capsView } from './views/caps'
import { clickView } from './views/click'
import { blockedZonesView } from './views/blocked-zones'

// Never framed (the server's CSP cannot reach a page Bun serves itself; this is the fallback).
if (window.top !== window.self) throw new Error('svc dashboard: refusing to run in a frame')

const root = document.getElementById('app')!
let me: Me | null = null

// Every screen, in menu order within its group (nav/menu.ts). `cards`: its tables read as cards on phones.
const SCREENS: Screen[] = [
  { path: '/campaigns', label: 'Campaigns', section: 'campaigns', group: 'track', cards: true, render: campaignsView },
  { path: '/reports', label: 'Reports', section: 'reports', group: 'track', render: reportsView },
  { path: '/conversions', label: 'Conversions', section: 'conversions', group: 'track', cards: true, render: () => conversionsView() },
  { path: '/leads', label: 'Leads', section: 'landings', group: 'track', module: 'landings', cards: true, render: recordsView(LEADS) },
  { path: '/caps', label: 'Caps', section: 'campaigns', group: 'track', cards: true, render: capsView },
  { path: '/blocked-zones', label: 'Blocked zones', section: 'campaigns', group: 'track', cards: true, render: blockedZonesView },
  { path: '/click', label: 'Click', section: 'conversions', group: 'track', hidden: true, cards: true, render: clickView },
  { path: '/sources', label: 'Sources', section: 'campaigns', group: 'setup', cards: true, render: catalogView(SOURCES) },
  { path: '/offers', label: 'Offers', section: 'campaigns', group: 'setup', cards: true, render: catalogView(OFFERS) },
  { path: '/landings', label: 'Landings', section: 'landings', group: 'setup', cards: true, render: catalogView(LANDINGS) },
  { path: '/rule-sets', label: 'Rule sets', section: 'campaigns', group: 'setup', cards: true, render: ruleSetsView },
  { path: '/postback-setup', label: 'Postback setup', section: 'conversions', group: 'setup', render: postbackSetupView },
  { path: '/email-lists', label: 'Email lists', section: 'email', group: 'email', module: 'email', cards: true, render: catalogView(EMAIL_LISTS) },
  { path: '/subscribers', label: 'Subscribers', section: 'email', group: 'email', module: 'email', hidden: true, cards: true, render: subscribersView },
  { path: '/email-triggers', label: 'Email triggers', section: 'email', group: 'email', module: 'email', cards: true, render: catalogView(EMAIL_TRIGGERS) },
  { path: '/automations', label: 'Automations', section: 'email', group: 'email', module: 'email', cards: true, render: automationsView },
  { path: '/outbox', label: 'Outbox', section: 'email', group: 'email', module: 'email', cards: true, render: recordsView(OUTBOX) },
  { path: '/orders', label: 'Orders', section: 'commerce', group: 'commerce', module: 'commerce', cards: true, render: recordsView(ORDERS) },
  { path: '/subscriptions', label: 'Subscriptions', section: 'commerce', group: 'commerce', module: 'commerce', cards: true, render: recordsView(SUBSCRIPTIONS) },
  { path: '/products', label: 'Products', section: 'commerce', group: 'commerce', module: 'commerce', cards: true, render: catalogView(PRODUCTS) },
  { path: '/payment-accounts', label: 'Payment accounts', section: 'commerce', group: 'commerce', module: 'commerce', cards: true, render: catalogView(PAYMENT_ACCOUNTS) },
  { path: '/webhook-events', label: 'Webhooks', section: 'commerce', group: 'commerce', module: 'commerce', cards: true, render: recordsView(WEBHOOK_EVENTS) },
  { path: '/settings', label: 'Settings', section: 'settings', group: 'admin', render: settingsView },
  { path: '/users', label: 'Users', section: 'users', group: 'admin', cards: true, render: usersView },
  { path: '/tokens', label: 'Agent tokens', section: 'users', group: 'admin', cards: true, render: tokensView },
]

const usage = new ModuleUsage()
const palette = new Palette(SCREENS, () => me)
palette.listen()
/** The screen shown last and the menu's state then: leaving a screen of a module the menu left out reads that module's use again (a list may have been made there). */
let shownScreen: Screen | null = null
let shownState: MenuState | null = null

whenSignedOut(() => { me = null; forgetUser(); showLogin() })

function forgetUser(): void {
  usage.forget()
  palette.reset()
  shownScreen = null
  shownState = null
}

function showLogin(): void {
  document.title = 'Sign in · svc'
  mount(root, h('main', { id: 'main' }, loginView((user) => { me = user; void route() })))
}

async function signOut(): Promise<void> {
  try { await api('POST', '/logout') } catch { /* the session is gone either way */ }
  me = null
  forgetUser()
  location.hash = '#/'
  showLogin()
}

async function menuState(user: Me): Promise<MenuState> {
  const showAll = showAllModules()
  return { showAll, use: showAll ? null : await usage.get(user) }
}

/**
 * The menu as far as it is known now, and (when some module checks are still out) the whole answer later:
 * the screen never waits for the module checks (they cost a round trip of up to nine requests on a cold page).
 */
function menuNow(user: Me): { state: MenuState; later: Promise<MenuState> | null; go: () => void } {
  const showAll = showAllModules()
  if (showAll || usage.complete()) return { state: { showAll, use: showAll ? null : usage.peek() }, later: null, go: () => {} }
  // The checks start once the screen has its data (go()): they would otherwise take the browser's six
  // connections to this server from the screen's own requests.
  let go!: () => void
  const gate = new Promise<void>((resolve) => { go = resolve })
  return { state: { showAll, use: usage.peek() }, later: gate.then(() => menuState(user)), go }
}

function shell(user: Me, current: string, state: MenuState, content: HTMLElement, cards = false, later: Promise<MenuState> | null = null): HTMLElement {
  let nav = menu(SCREENS, user, current, state, onShowAll)
  // data-modules="known": the menu shows every module in use (tests wait for it; nothing styles it).
  if (!later) nav.setAttribute('data-modules', 'known')
  const toggle = h('button', { type: 'button', class: 'small menu-toggle', 'aria-expanded': 'false', 'aria-controls': 'menu' }, 'Menu')
  const layout = h('div', { class: 'layout' },
    // The hash is the router's: following "#main" would route to a screen named "main" (none: the home screen).
    h('a', { class: 'skip', href: '#main', onclick: (e: Event) => { e.preventDefault(); document.getElementById('main')?.focus() } }, 'Skip to content'),
    h('header', {},
      h('strong', { class: 'brand' }, 'svc'),
      toggle,
      h('button', { type: 'button', class: 'small search-open', 'aria-haspopup': 'dialog', 'aria-keyshortcuts': 'Control+K Meta+K /', onclick: () => palette.open() },
        'Search', h('kbd', {}, /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘K' : 'Ctrl K')),
      h('span', { class: 'who' }, user.email, user.is_owner ? ' (owner)' : ''),
      h('button', { type: 'button', class: 'small', onclick: () => void signOut() }, 'Sign out')),
    h('div', { class: 'frame' }, nav,
      h('main', { id: 'main', tabindex: '-1', 'data-cards': cards ? '' : null }, content)),
  )
  // The menu panel below 900 px: the button opens it, Esc or choosing a link closes it.
  const setOpen = (open: boolean) => {
    layout.classList.toggle('menu-open', open)
    toggle.setAttribute('aria-expanded', String(open))
  }
  toggle.addEventListener('click', () => {
    const open = toggle.getAttribute('aria-expanded') !== 'true'
    setOpen(open)
    if (open) nav.querySelector<HTMLElement>('a[aria-current="page"], a')?.focus()
  })
  layout.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && layout.classList.contains('menu-open')) {
      setOpen(false)
      toggle.focus()
    }
  })
  layout.addEventListener('click', (e) => { if (e.target instanceof HTMLAnchorElement && nav.contains(e.target)) setOpen(false) })
  // The module checks answered: the menu again (links of modules in use appear), unless the page moved on.
  void later?.then((full) => {
    if (!layout.isConnected || showAllModules()) return
    shownState = full
    const fresh = menu(SCREENS, user, current, full, onShowAll)
    fresh.setAttribute('data-modules', 'known')
    nav.replaceWith(fresh)
    nav = fresh
  })
  // "Show all modules": the menu again, same screen.
  async function onShowAll(on: boolean): Promise<void> {
    setShowAllModules(on)
    const fresh = menu(SCREENS, user, current, await menuState(user), onShowAll)
    fresh.setAttribute('data-modules', 'known')
    nav.replaceWith(fresh)
    nav = fresh
    nav.querySelector<HTMLElement>('#show-all-modules')?.focus()
  }
  return layout
}

async function route(): Promise<void> {
  if (!me) {
    try {
      me = await api<Me>('GET', '/me')
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return showLogin()
      mount(root, h('p', { role: 'alert' }, 'The server could not be reached.'))
      return
    }
  }
  const user = me
  const [hashPath, hashQuery] = location.hash.replace(/^#/, '').split('?') as [string, string | undefined]
  const path = hashPath || '/'
  const params = new URLSearchParams(hashQuery ?? '')
  if (shownScreen?.module && shownState && shownScreen.path !== path && leftOut(shownScreen, shownState)) usage.forget(shownScreen.module)
  const { state, later, go } = menuNow(user)
  shownState = state
  let screen = SCREENS.find((s) => s.path === path && can(user, s.section, 'read'))
  if (path === '/' || path === '/first-run' || !screen) {
    // First run: no campaign yet, and the user may create one.
    if (can(user, 'campaigns', 'write') && (path === '/first-run' || (await all('/campaigns')).length === 0)) {
      document.title = 'First campaign · svc'
      shownScreen = null
      mount(root, shell(user, '/first-run', state, firstRunView(() => void route()), false, later))
      go()
      return
    }
    screen = readable(SCREENS, user)[0]
    if (!screen) {
      mount(root, shell(user, '', state, h('p', {}, 'Your account has no permissions yet. Ask an owner to grant you a section.'), false, later))
      go()
      return
    }
    if (location.hash !== `#${screen.path}`) { location.hash = `#${screen.path}`; return }
  }
  document.title = `${screen.label} · svc`
  shownScreen = screen
  const placeholder = h('p', { 'aria-busy': 'true' }, 'Loading…')
  mount(root, shell(user, screen.path, state, placeholder, screen.cards, later))
  try {
    placeholder.replaceWith(await screen.render(user, params))
  } catch (err) {
    placeholder.replaceWith(h('p', { role: 'alert' }, err instanceof ApiError ? `The server refused: ${err.message}` : 'Something went wrong.'))
  } finally {
    go()
  }
}

labelTablesUnder(root)
window.addEventListener('hashchange', () => void route())
void route()
