// The dashboard's only DOM helper: h('tag', {attrs, on…}, children) builds an element. Text children are
// text nodes (never parsed as HTML), so nothing the API returns can inject markup.
type Child = Node | string | number | null | undefined | false | Child[]
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value)
    else if (name === 'value' && 'value' in el) (el as HTMLInputElement).value = String(value)
    else el.setAttribute(name, value === true ? '' : String(value))
  }
  append(el, children)
  return el
}

function append(el: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    if (Array.isArray(child)) append(el, child)
    else el.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child)
  }
}

/** Replaces the children of `el`. */
export function mount(el: Element, ...children: Child[]): void {
  el.replaceChildren()
  append(el, children)
}

let fieldCount = 0

/** A labelled input row; the error slot below it shows the API's message for that field. */
export function field(label: string, input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, hint?: string): HTMLElement {
  // Unique ids: two forms on one screen may both have an "email" field (a filter and an add form).
  const id = input.id || (input.id = `f-${input.name}-${++fieldCount}`)
  return h('div', { class: 'field' },
    h('label', { for: id }, label),
    input,
    hint ? h('small', {}, hint) : null,
    h('span', { class: 'field-error', 'data-error-for': input.name, role: 'alert' }),
  )
}

/** A header cell's text as a card label: its data-label or aria-label, else its text without sort arrows. */
function headerText(th: Element): string {
  return (th.getAttribute('data-label') ?? th.getAttribute('aria-label') ?? th.textContent ?? '').replace(/[▲▼↑↓⇅]/g, '').trim()
}

/**
 * Copies each column's header text into its body and footer cells' `data-label` (a cell that has one keeps it),
 * so `table.cards` shows each row as a card of "label: value" lines on phones (style.css). Column spans are
 * followed; the last header row names the columns.
 */
export function labelCells(table: HTMLTableElement): void {
  const head = table.tHead?.rows
  const names: string[] = []
  for (const th of head?.length ? [...head[head.length - 1]!.cells] : []) {
    const text = headerText(th)
    for (let i = 0; i < th.colSpan; i++) names.push(text)
  }
  if (!names.length) return
  for (const section of [...table.tBodies, ...(table.tFoot ? [table.tFoot] : [])]) {
    for (const row of section.rows) {
      let col = 0
      for (const cell of row.cells) {
        // A cell over several columns is a message ("No caps yet") or a group's label: no column name fits it.
        const name = cell.colSpan === 1 ? names[col] : undefined
        if (name && !cell.hasAttribute('data-label')) cell.setAttribute('data-label', name)
        col += cell.colSpan
      }
    }
  }
}

/**
 * Labels every table under `root` now and whenever rows are added (screens render and re-render their own
 * tables), and makes the tables inside a `[data-cards]` element cards (but a .grid, or one with data-cards="off").
 */
export function labelTablesUnder(root: Element): MutationObserver {
  // Observer callbacks come once per batch of changes (a microtask), so a table rendered row by row is labelled once.
  const run = () => root.querySelectorAll('table').forEach((t) => {
    if (!t.classList.contains('cards') && t.closest('[data-cards]:not(table)') && !t.matches('.grid, [data-cards="off"]')) t.classList.add('cards')
    labelCells(t)
  })
  const observer = new MutationObserver(run)
  observer.observe(root, { childList: true, subtree: true })
  run()
  return observer
}
