// The grouped menu (issue 30): Track, Setup, Email, Commerce, Admin. A left sidebar from 900 px (every link
// visible), a panel behind the header's "Menu" button below. Screens of a module the instance does not use
// are left out (nav/modules.ts) unless "Show all modules" is on, or the screen is the one shown.
import { can, type Me } from '../api'
import { h } from '../dom'
import type { Module, ModuleUse } from './modules'

export type Group = 'track' | 'setup' | 'email' | 'commerce' | 'admin'

export const GROUPS: ReadonlyArray<{ id: Group; label: string }> = [
  { id: 'track', label: 'Track' },
  { id: 'setup', label: 'Setup' },
  { id: 'email', label: 'Email' },
  { id: 'commerce', label: 'Commerce' },
  { id: 'admin', label: 'Admin' },
]

export interface Screen {
  path: string
  label: string
  /** The permission section whose read shows the screen. */
  section: string
  group: Group
  /** An optional module: hidden from the menu while the instance does not use it. */
  module?: Module
  /** Reached by links only (a list's subscribers, a click's timeline), never in the menu. */
  hidden?: boolean
  /** Its tables become cards on phones (style.css `[data-cards] table`), for views that do not say so themselves. */
  cards?: boolean
  render: (me: Me, params: URLSearchParams) => HTMLElement | Promise<HTMLElement>
}

/** The screens a user may open from the menu, hidden modules included (the quick search lists these). */
export const readable = (screens: readonly Screen[], user: Me) => screens.filter((s) => !s.hidden && can(user, s.section, 'read'))

export interface MenuState {
  use: ModuleUse | null
  showAll: boolean
}

/** Whether the menu leaves the screen out for now (its module unused). */
export function leftOut(s: Screen, state: MenuState): boolean {
  return !!s.module && !state.showAll && state.use !== null && !state.use[s.module]
}

export function menu(screens: readonly Screen[], user: Me, current: string, state: MenuState, onShowAll: (on: boolean) => void): HTMLElement {
  const mine = readable(screens, user)
  const shown = mine.filter((s) => s.path === current || !leftOut(s, state))
  const someLeftOut = mine.some((s) => leftOut(s, state))
  const groups = GROUPS.map((g) => ({ g, items: shown.filter((s) => s.group === g.id) })).filter((x) => x.items.length > 0)
  const toggle = h('input', { type: 'checkbox', id: 'show-all-modules', checked: state.showAll })
  toggle.addEventListener('change', () => onShowAll(toggle.checked))
  return h('nav', { id: 'menu', 'aria-label': 'Main' },
    // The group's name is text read just before its list, not the list's label: a list labelled "Email" would
    // answer to the label of every Email field (a test's getByLabel('Email'), a screen reader's "Email" search).
    groups.map(({ g, items }) => h('div', { class: 'nav-group', 'data-group': g.id },
      h('span', { class: 'nav-group-label' }, g.label),
      h('ul', {}, items.map((s) =>
        h('li', {}, h('a', { href: `#${s.path}`, 'aria-current': s.path === current ? 'page' : null }, s.label)))))),
    someLeftOut || state.showAll
      ? h('div', { class: 'nav-modules' }, toggle, h('label', { for: 'show-all-modules' }, 'Show all modules'))
      : null,
    h('p', { class: 'nav-who' }, user.email, user.is_owner ? ' (owner)' : ''),
  )
}
