// The svc dashboard: a small single-page app over the admin API (hash routes, so the server serves one
// page at /admin and every /admin/api path stays the API's). Screens follow the user's section permissions.
import { all, api, ApiError, can, whenSignedOut, type Me } from './api'
import { h, mount } from './dom'
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

// Never framed (the server's CSP cannot reach a page Bun serves itself; this is the fallback).
if (window.top !== window.self) throw new Error('svc dashboard: refusing to run in a frame')

const root = document.getElementById('app')!
let me: Me | null = null

interface Screen { path: string; label: string; section: string; hidden?: boolean; render: (me: Me, params: URLSearchParams) => HTMLElement | Promise<HTMLElement> }
const SCREENS: Screen[] = [
  { path: '/campaigns', label: 'Campaigns', section: 'campaigns', render: campaignsView },
  { path: '/rule-sets', label: 'Rule sets', section: 'campaigns', render: ruleSetsView },
  { path: '/sources', label: 'Sources', section: 'campaigns', render: catalogView(SOURCES) },
  { path: '/offers', label: 'Offers', section: 'campaigns', render: catalogView(OFFERS) },
  { path: '/caps', label: 'Caps', section: 'campaigns', render: capsView },
  { path: '/landings', label: 'Landings', section: 'landings', render: catalogView(LANDINGS) },
  { path: '/leads', label: 'Leads', section: 'landings', render: recordsView(LEADS) },
  { path: '/reports', label: 'Reports', section: 'reports', render: reportsView },
  { path: '/conversions', label: 'Conversions', section: 'conversions', render: () => conversionsView() },
  { path: '/postback-setup', label: 'Postback setup', section: 'conversions', render: postbackSetupView },
  { path: '/email-lists', label: 'Email lists', section: 'email', render: catalogView(EMAIL_LISTS) },
  { path: '/subscribers', label: 'Subscribers', section: 'email', hidden: true, render: subscribersView },
  { path: '/email-triggers', label: 'Email triggers', section: 'email', render: catalogView(EMAIL_TRIGGERS) },
  { path: '/automations', label: 'Automations', section: 'email', render: automationsView },
  { path: '/outbox', label: 'Outbox', section: 'email', render: recordsView(OUTBOX) },
  { path: '/orders', label: 'Orders', section: 'commerce', render: recordsView(ORDERS) },
  { path: '/subscriptions', label: 'Subscriptions', section: 'commerce', render: recordsView(SUBSCRIPTIONS) },
  { path: '/products', label: 'Products', section: 'commerce', render: catalogView(PRODUCTS) },
  { path: '/payment-accounts', label: 'Payment accounts', section: 'commerce', render: catalogView(PAYMENT_ACCOUNTS) },
  { path: '/webhook-events', label: 'Webhooks', section: 'commerce', render: recordsView(WEBHOOK_EVENTS) },
  { path: '/settings', label: 'Settings', section: 'settings', render: settingsView },
  { path: '/users', label: 'Users', section: 'users', render: usersView },
  { path: '/tokens', label: 'Agent tokens', section: 'users', render: tokensView },
]

whenSignedOut(() => { me = null; showLogin() })

function showLogin(): void {
  document.title = 'Sign in · svc'
  mount(root, h('main', { id: 'main' }, loginView((user) => { me = user; void route() })))
}

async function signOut(): Promise<void> {
  try { await api('POST', '/logout') } catch { /* the session is gone either way */ }
  me = null
  location.hash = '#/'
  showLogin()
}

function shell(user: Me, current: string, content: HTMLElement): HTMLElement {
  const nav = h('nav', { 'aria-label': 'Main' }, h('ul', {}, SCREENS.filter((s) => !s.hidden && can(user, s.section, 'read')).map((s) =>
    h('li', {}, h('a', { href: `#${s.path}`, 'aria-current': s.path === current ? 'page' : null }, s.label)))))
  return h('div', { class: 'layout' },
    h('a', { class: 'skip', href: '#main' }, 'Skip to content'),
    h('header', {}, h('strong', {}, 'svc'), nav,
      h('span', { class: 'who' }, user.email, user.is_owner ? ' (owner)' : ''),
      h('button', { type: 'button', class: 'small', onclick: () => void signOut() }, 'Sign out')),
    h('main', { id: 'main', tabindex: '-1' }, content),
  )
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
  let screen = SCREENS.find((s) => s.path === path && can(user, s.section, 'read'))
  if (path === '/' || path === '/first-run' || !screen) {
    // First run: no campaign yet, and the user may create one.
    if (can(user, 'campaigns', 'write') && (path === '/first-run' || (await all('/campaigns')).length === 0)) {
      document.title = 'First campaign · svc'
      mount(root, shell(user, '/first-run', firstRunView(() => void route())))
      return
    }
    screen = SCREENS.find((s) => !s.hidden && can(user, s.section, 'read'))
    if (!screen) {
      mount(root, shell(user, '', h('p', {}, 'Your account has no permissions yet. Ask an owner to grant you a section.')))
      return
    }
    if (location.hash !== `#${screen.path}`) { location.hash = `#${screen.path}`; return }
  }
  document.title = `${screen.label} · svc`
  const placeholder = h('p', { 'aria-busy': 'true' }, 'Loading…')
  mount(root, shell(user, screen.path, placeholder))
  try {
    placeholder.replaceWith(await screen.render(user, params))
  } catch (err) {
    placeholder.replaceWith(h('p', { role: 'alert' }, err instanceof ApiError ? `The server refused: ${err.message}` : 'Something went wrong.'))
  }
}

window.addEventListener('hashchange', () => void route())
void route()
