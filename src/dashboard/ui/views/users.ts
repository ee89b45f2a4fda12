// Users and their permissions (section users): the 8 sections × read/write as a grid of checkboxes, owners
// marked; create, change (a new password signs that user out everywhere), delete.
import { all, api, can, type Me } from '../api'
import { field, h, mount } from '../dom'
import { clearErrors, showErrors, upsert } from '../forms'

const SECTIONS = ['campaigns', 'landings', 'conversions', 'reports', 'email', 'commerce', 'settings', 'users'] as const
type Permissions = Record<string, { read: boolean; write: boolean }>
interface User { id: number; email: string; is_owner: boolean; permissions: Permissions }

export async function usersView(me: Me): Promise<HTMLElement> {
  const users = await all<User>('/users')
  const writable = can(me, 'users', 'write')
  const tbody = h('tbody')
  const editor = h('div')
  const status = h('p', { class: 'form-error', role: 'alert' })
  const summary = (u: User) => (u.is_owner ? 'owner: everything'
    : SECTIONS.filter((s) => u.permissions[s]?.read || u.permissions[s]?.write)
      .map((s) => `${s} ${u.permissions[s]!.read ? 'read' : ''}${u.permissions[s]!.read && u.permissions[s]!.write ? '+' : ''}${u.permissions[s]!.write ? 'write' : ''}`).join(', ') || 'none')

  const render = () => mount(tbody, users.map((u) => h('tr', { 'data-user': u.email },
    h('td', {}, u.email, u.id === me.id ? ' (you)' : ''), h('td', {}, summary(u)),
    h('td', { class: 'actions' },
      writable ? h('button', { type: 'button', class: 'small', onclick: () => open(u) }, 'Edit') : null,
      writable && u.id !== me.id ? h('button', { type: 'button', class: 'small', onclick: async () => {
        if (!confirm(`Delete ${u.email}?`)) return
        try {
          await api('DELETE', `/users/${u.id}`)
          users.splice(users.indexOf(u), 1)
          render()
        } catch (err) { status.textContent = (err as Error).message }
      } }, 'Delete') : null))))

  const open = (existing: User | null) => {
    const email = h('input', { name: 'email', type: 'email', required: !existing, value: existing?.email ?? '' })
    const password = h('input', { name: 'password', type: 'password', autocomplete: 'new-password', placeholder: existing ? '(unchanged)' : '' })
    const owner = h('input', { name: 'is_owner', type: 'checkbox', checked: existing?.is_owner ?? false })
    const boxes = SECTIONS.flatMap((s) => (['read', 'write'] as const).map((a) =>
      h('input', { type: 'checkbox', 'data-section': s, 'data-action': a, 'aria-label': `${s} ${a}`, checked: existing?.permissions[s]?.[a] ?? false })))
    const grid = h('table', { class: 'grid' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'section'), h('th', { scope: 'col' }, 'read'), h('th', { scope: 'col' }, 'write'))),
      h('tbody', {}, SECTIONS.map((s, i) => h('tr', {}, h('th', { scope: 'row' }, s), h('td', {}, boxes[i * 2]!), h('td', {}, boxes[i * 2 + 1]!)))))
    const form = h('form', { class: 'card', 'aria-labelledby': 'user-form' },
      h('h2', { id: 'user-form' }, existing ? `Edit ${existing.email}` : 'New user'),
      field('Email', email), field('Password', password, existing ? 'A new password signs this user out everywhere' : 'At least 8 characters'),
      h('div', { class: 'field' }, h('label', {}, owner, ' Owner (every permission)')),
      h('fieldset', {}, h('legend', {}, 'Permissions'), grid, h('span', { class: 'field-error', 'data-error-for': 'permissions', role: 'alert' })),
      h('p', { class: 'form-error', role: 'alert' }),
      h('button', { type: 'submit' }, existing ? 'Save' : 'Create user'), ' ',
      h('button', { type: 'button', class: 'small', onclick: () => editor.replaceChildren() }, 'Cancel'),
    )
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      clearErrors(form)
      const permissions: Permissions = {}
      for (const b of boxes) {
        const s = b.dataset.section!
        permissions[s] ??= { read: false, write: false }
        permissions[s]![b.dataset.action as 'read' | 'write'] = b.checked
      }
      const body: Record<string, unknown> = { permissions }
      if (!existing || email.value !== existing.email) body.email = email.value
      if (password.value) body.password = password.value
      if (!existing || owner.checked !== existing.is_owner) body.is_owner = owner.checked
      try {
        const saved = await api<User>(existing ? 'PATCH' : 'POST', existing ? `/users/${existing.id}` : '/users', body)
        upsert(users, existing, saved)
        editor.replaceChildren()
        render()
      } catch (err) {
        showErrors(form, err)
      }
    })
    mount(editor, form)
    email.focus()
  }

  render()
  return h('section', { 'aria-labelledby': 'users-title' },
    h('div', { class: 'toolbar' }, h('h1', { id: 'users-title' }, 'Users'),
      writable ? h('button', { type: 'button', onclick: () => open(null) }, 'New user') : null),
    status, editor,
    h('div', { class: 'table-wrap' }, h('table', {}, h('thead', {}, h('tr', {}, ['Email', 'Permissions', ''].map((c) => h('th', { scope: 'col' }, c)))), tbody)),
  )
}
