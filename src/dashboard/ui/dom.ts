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
