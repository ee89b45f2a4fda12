// Agent tokens (section users): create one (its secret is shown once, to copy), see status, scopes and last
// use, revoke; and the audit log of agent calls underneath.
import { all, api, can, type Me } from '../api'
import { field, h, mount } from '../dom'
import { clearErrors, copy, showErrors } from '../forms'

interface Token { id: number; name: string; token_hint: string; scopes: string[]; status: string; last_used_at: string | null; expires_at: string | null }
interface Scope { scope: string; resource: string; action: string; covers: string }
interface Audit { id: number; token_name: string | null; surface: string; tool: string; outcome: string; error: string | null; duration_ms: number; created_at: string }

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—')

export async function tokensView(me: Me): Promise<HTMLElement> {
  const writable = can(me, 'users', 'write')
  const [tokens, scopes, audit] = await Promise.all([
    all<Token>('/tokens'),
    api<{ items: Scope[] }>('GET', '/tokens/scopes'),
    api<{ items: Audit[] }>('GET', '/audit?limit=50'),
  ])
  const list = h('tbody')
  const status = h('p', { class: 'form-error', role: 'alert' })
  const renderList = () => mount(list, tokens.length === 0 ? h('tr', {}, h('td', { colspan: 6 }, 'No agent tokens yet.')) : tokens.map((t) =>
    h('tr', { 'data-token': t.name },
      h('td', {}, t.name), h('td', {}, h('code', {}, t.token_hint)), h('td', {}, t.status),
      h('td', {}, t.scopes.length === 42 ? 'all 42' : t.scopes.join(', ')), h('td', {}, when(t.last_used_at)),
      h('td', {}, writable && t.status !== 'revoked' ? h('button', { type: 'button', class: 'small', onclick: async () => {
        if (!confirm(`Revoke the token "${t.name}"? Agents using it stop at once.`)) return
        try {
          await api('DELETE', `/tokens/${t.id}`)
          t.status = 'revoked'
          renderList()
        } catch (err) { status.textContent = (err as Error).message }
      } }, 'Revoke') : null),
    )))
  renderList()

  let form: HTMLElement | null = null
  if (writable) {
    const name = h('input', { name: 'name', required: true, placeholder: 'e.g. claude-desktop' })
    const expires = h('input', { name: 'expires_at', type: 'date' })
    const boxes = scopes.items.map((s) => h('input', { type: 'checkbox', name: 'scopes', value: s.scope, id: `scope-${s.scope}` }))
    const created = h('div', { 'aria-live': 'polite' })
    form = h('form', { class: 'card', 'aria-labelledby': 'new-token' },
      h('h2', { id: 'new-token' }, 'New token'),
      field('Name', name), field('Expires (optional)', expires),
      h('fieldset', { class: 'scopes' }, h('legend', {}, 'Scopes'),
        h('span', { class: 'field-error', 'data-error-for': 'scopes', role: 'alert' }),
        scopes.items.map((s, i) => h('label', { class: 'scope', title: s.covers }, boxes[i]!, ` ${s.scope}`))),
      h('p', { class: 'form-error', role: 'alert' }),
      h('button', { type: 'submit' }, 'Create token'),
      created,
    )
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      clearErrors(form!)
      try {
        const chosen = boxes.filter((b) => b.checked).map((b) => b.value)
        const body: Record<string, unknown> = { name: name.value, scopes: chosen }
        if (expires.value) body.expires_at = `${expires.value}T23:59:59Z`
        const t = await api<Token & { token: string }>('POST', '/tokens', body)
        tokens.unshift(t)
        renderList()
        const copyButton = h('button', { type: 'button', class: 'small', onclick: () => copy(copyButton, t.token) }, 'Copy')
        mount(created, h('p', {}, 'Copy the token now: it is not shown again. ', h('code', { class: 'link', 'data-new-token': '' }, t.token), ' ', copyButton))
      } catch (err) {
        showErrors(form!, err)
      }
    })
  }

  return h('section', { 'aria-labelledby': 'tokens-title' },
    h('h1', { id: 'tokens-title' }, 'Agent tokens'),
    h('p', {}, 'Tokens let AI agents (MCP at /mcp) and scripts (Authorization: Bearer) use the admin API within their scopes.'),
    status,
    h('div', { class: 'table-wrap' }, h('table', {},
      h('thead', {}, h('tr', {}, ['Name', 'Token', 'Status', 'Scopes', 'Last used', ''].map((c) => h('th', { scope: 'col' }, c)))), list)),
    form,
    h('h2', {}, 'Audit log'),
    h('div', { class: 'table-wrap' }, h('table', { 'data-audit': '' },
      h('thead', {}, h('tr', {}, ['Time', 'Token', 'Call', 'Outcome', 'ms'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, audit.items.length === 0 ? h('tr', {}, h('td', { colspan: 5 }, 'No agent calls yet.')) : audit.items.map((a) =>
        h('tr', {}, h('td', {}, when(a.created_at)), h('td', {}, a.token_name ?? '—'), h('td', {}, h('code', {}, a.tool)),
          h('td', {}, a.outcome, a.error ? ` (${a.error})` : ''), h('td', { class: 'num' }, a.duration_ms)))))),
  )
}
