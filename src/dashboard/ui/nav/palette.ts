// Quick search (issue 30): Ctrl+K / ⌘K, "/" outside a field, or the header's Search button open a modal
// dialog that finds a screen, a campaign, an offer, a source or a landing by name, or opens a pasted click
// id's timeline. A combobox over a listbox (arrows move, Enter opens, Esc closes, Tab stays inside). The
// names are fetched on the first open with the user's own permissions, and again when a minute old.
//
// Where an entity leads: its list filtered to it (`#/campaigns?search=<name>`), where its period numbers,
// tracking link and edit controls are; a click id leads to its timeline (`#/click?id=`).
import { all, can, type Me } from '../api'
import { h, mount } from '../dom'
import { GROUPS, readable, type Screen } from './menu'

export interface Item {
  kind: 'Click' | 'Screen' | 'Campaign' | 'Offer' | 'Source' | 'Landing'
  label: string
  /** Shown after the label and searched too: a screen's group, a campaign's slug. */
  detail?: string
  href: string
}

const KIND_ORDER: Item['kind'][] = ['Click', 'Screen', 'Campaign', 'Offer', 'Source', 'Landing']
const ENTITIES = [
  { kind: 'Campaign', path: '/campaigns', section: 'campaigns' },
  { kind: 'Offer', path: '/offers', section: 'campaigns' },
  { kind: 'Source', path: '/sources', section: 'campaigns' },
  { kind: 'Landing', path: '/landings', section: 'landings' },
] as const
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const MAX_RESULTS = 50
const FRESH_MS = 60_000

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The items that hold every word of the query, best first: the name starts with it, a word of it does, it holds it. */
export function search(items: readonly Item[], query: string): Item[] {
  const q = query.trim().toLowerCase()
  if (!q) return items.filter((i) => i.kind === 'Screen')
  const words = q.split(/\s+/)
  const wordStart = new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRe(q)}`, 'u')
  const score = (i: Item) => {
    const label = i.label.toLowerCase()
    return label.startsWith(q) ? 0 : wordStart.test(label) ? 1 : label.includes(q) ? 2 : 3
  }
  return items
    .filter((i) => { const hay = `${i.label} ${i.detail ?? ''} ${i.kind}`.toLowerCase(); return words.every((w) => hay.includes(w)) })
    .map((i) => ({ i, s: score(i) }))
    .sort((a, b) => a.s - b.s || KIND_ORDER.indexOf(a.i.kind) - KIND_ORDER.indexOf(b.i.kind) || a.i.label.localeCompare(b.i.label))
    .map((x) => x.i)
}

/** Whether a keystroke goes into a field (then "/" is a character, not the shortcut). */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  if (target.isContentEditable || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT') return true
  return target.tagName === 'INPUT' && !/^(checkbox|radio|button|submit|reset|range|color|file)$/.test((target as HTMLInputElement).type)
}

export class Palette {
  private dialog: HTMLDialogElement | null = null
  private input!: HTMLInputElement
  private list!: HTMLUListElement
  private status!: HTMLElement
  private results: Item[] = []
  private active = 0
  private names: Item[] = []
  private namesAt = 0
  private loading = false
  private opener: Element | null = null

  constructor(private readonly screens: readonly Screen[], private readonly user: () => Me | null) {}

  /** The keyboard shortcuts, once per page. */
  listen(): void {
    document.addEventListener('keydown', (e) => {
      if (!this.user() || e.defaultPrevented) return
      const otherDialog = [...document.querySelectorAll('dialog[open]')].some((d) => d !== this.dialog)
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k') {
        if (otherDialog) return
        e.preventDefault()
        if (this.dialog?.open) this.close()
        else this.open()
      } else if (e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey && !typing(e.target) && !otherDialog && !this.dialog?.open) {
        e.preventDefault()
        this.open()
      }
    })
  }

  open(): void {
    const me = this.user()
    if (!me) return
    const dialog = this.dialog ?? this.build()
    if (dialog.open) return
    this.opener = document.activeElement
    this.input.value = ''
    this.update()
    dialog.showModal()
    this.input.focus()
    if (Date.now() - this.namesAt > FRESH_MS) void this.fetchNames(me)
  }

  close(): void {
    this.dialog?.close()
  }

  /** Signed out: forget the names (another user may sign in next). */
  reset(): void {
    this.close()
    this.names = []
    this.namesAt = 0
  }

  private build(): HTMLDialogElement {
    this.input = h('input', {
      id: 'palette-input', type: 'text', role: 'combobox', autocomplete: 'off', spellcheck: 'false',
      'aria-expanded': 'true', 'aria-controls': 'palette-list', 'aria-autocomplete': 'list',
      placeholder: 'Screen, campaign, offer, source, landing, or a click id',
    })
    this.list = h('ul', { id: 'palette-list', role: 'listbox', 'aria-label': 'Results' })
    this.status = h('p', { class: 'palette-status', 'aria-live': 'polite' })
    const closeButton = h('button', { type: 'button', class: 'small', 'aria-label': 'Close quick search', onclick: () => this.close() }, 'Close')
    const dialog = h('dialog', { class: 'palette', 'aria-modal': 'true', 'aria-labelledby': 'palette-title' },
      h('div', { class: 'palette-head' }, h('label', { id: 'palette-title', for: 'palette-input' }, 'Quick search'), closeButton),
      this.input, this.status, this.list)
    this.input.addEventListener('input', () => this.update())
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault()
        if (this.results.length) this.activate((this.active + (e.key === 'ArrowDown' ? 1 : -1) + this.results.length) % this.results.length)
      } else if (e.key === 'Enter') {
        e.preventDefault()
        this.choose(this.active)
      }
    })
    // Focus stays in the dialog: Tab cycles between the field and the close button.
    dialog.addEventListener('keydown', (e) => {
      if (e.key !== 'Tab') return
      e.preventDefault()
      ;(document.activeElement === this.input ? closeButton : this.input).focus()
    })
    // A click on the backdrop (the dialog box itself, outside its content) closes.
    dialog.addEventListener('click', (e) => { if (e.target === dialog) this.close() })
    dialog.addEventListener('close', () => {
      if (this.opener instanceof HTMLElement && this.opener.isConnected) this.opener.focus()
      this.opener = null
    })
    this.list.addEventListener('mousedown', (e) => e.preventDefault())
    document.body.append(dialog)
    return (this.dialog = dialog)
  }

  private items(me: Me): Item[] {
    const screens: Item[] = readable(this.screens, me).map((s) => ({
      kind: 'Screen', label: s.label, detail: GROUPS.find((g) => g.id === s.group)?.label, href: `#${s.path}`,
    }))
    const q = this.input.value.trim()
    const click: Item[] = UUID.test(q) && can(me, 'conversions', 'read')
      ? [{ kind: 'Click', label: `Open click ${q.toLowerCase()}`, href: `#/click?id=${q.toLowerCase()}` }]
      : []
    return [...click, ...screens, ...this.names]
  }

  private async fetchNames(me: Me): Promise<void> {
    this.namesAt = Date.now()
    this.loading = true
    const lists = await Promise.all(ENTITIES.filter((e) => can(me, e.section, 'read')).map(async (e) => {
      try {
        const rows = await all<{ name: string; slug?: string }>(e.path)
        return rows.map((r): Item => ({ kind: e.kind, label: r.name, detail: r.slug, href: `#${e.path}?search=${encodeURIComponent(r.name)}` }))
      } catch {
        return []
      }
    }))
    this.loading = false
    if (this.user() !== me) return
    this.names = lists.flat()
    if (this.dialog?.open) this.update()
  }

  private update(): void {
    const me = this.user()
    if (!me) return
    const all = this.items(me)
    const q = this.input.value.trim()
    const found = UUID.test(q) ? all.filter((i) => i.kind === 'Click') : search(all, q)
    this.results = found.slice(0, MAX_RESULTS)
    mount(this.list, this.results.map((item, i) => {
      const li = h('li', { id: `palette-option-${i}`, role: 'option', 'aria-selected': 'false', 'data-kind': item.kind.toLowerCase() },
        h('span', { class: 'palette-label' }, item.label),
        item.detail ? h('span', { class: 'palette-detail' }, item.detail) : null,
        h('span', { class: 'palette-kind' }, item.kind))
      li.addEventListener('click', () => this.choose(i))
      return li
    }))
    this.status.textContent = this.results.length
      ? `${found.length > MAX_RESULTS ? `First ${MAX_RESULTS} of ${found.length}` : found.length} result${found.length === 1 ? '' : 's'}`
      : this.loading ? 'No match yet (loading names…)' : 'No match'
    this.activate(0)
  }

  private activate(i: number): void {
    this.active = i
    const options = this.list.querySelectorAll<HTMLElement>('[role=option]')
    options.forEach((o, j) => o.setAttribute('aria-selected', String(j === i)))
    const current = options[i]
    if (current) {
      this.input.setAttribute('aria-activedescendant', current.id)
      current.scrollIntoView({ block: 'nearest' })
    } else {
      this.input.removeAttribute('aria-activedescendant')
    }
  }

  private choose(i: number): void {
    const item = this.results[i]
    if (!item) return
    this.opener = null
    this.close()
    if (location.hash === item.href) window.dispatchEvent(new HashChangeEvent('hashchange'))
    else location.hash = item.href
  }
}
