// Sign in with the admin login (spec §5): the session lives in the HttpOnly cookie the API sets.
import { api, ApiError, type Me } from '../api'
import { field, h } from '../dom'

export function loginView(onSignedIn: (me: Me) => void): HTMLElement {
  const email = h('input', { name: 'email', type: 'email', autocomplete: 'username', required: true })
  const password = h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true })
  const status = h('p', { class: 'form-error', role: 'alert' })
  const form = h('form', { class: 'card narrow', 'aria-labelledby': 'login-title' },
    h('h1', { id: 'login-title' }, 'Sign in to svc'),
    field('Email', email),
    field('Password', password),
    status,
    h('button', { type: 'submit' }, 'Sign in'),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    status.textContent = ''
    try {
      const answer = await api<{ ok: true; user: Me }>('POST', '/login', { email: email.value, password: password.value })
      onSignedIn(answer.user)
    } catch (err) {
      status.textContent = err instanceof ApiError ? err.message : 'The server could not be reached.'
    }
  })
  return form
}
