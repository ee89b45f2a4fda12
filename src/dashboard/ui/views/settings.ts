// Settings (section settings): the postback secret with a generator and an example signed postback URL
// (signed here in the browser with WebCrypto, exactly as /postback checks it: HMAC-SHA256 over
// subid|status|payout|tid), then every other key of GET /admin/api/settings as a form. Secrets are
// write-only: the API shows them masked, an empty field leaves them unchanged.
import { api, can, type Me } from '../api'
import { field, h, mount } from '../dom'
import { clearErrors, copy, showErrors } from '../forms'

type Settings = Record<string, unknown>

const MASK = '********'
const SECRET = /(secret|_key$|token|credentials)/
const READ_ONLY = new Set(['warnings'])

/** A fresh secret: 24 random bytes, base64url (32 characters). */
function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24))
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(message)))
  return [...mac].map((b) => b.toString(16).padStart(2, '0')).join('')
}

/** The signed postback URL for these values (an absent value signs as the empty string). */
export async function signedPostbackUrl(origin: string, secret: string, v: { subid: string; status: string; payout: string; tid: string }): Promise<string> {
  const sig = await hmacHex(secret, `${v.subid}|${v.status}|${v.payout}|${v.tid}`)
  const q = new URLSearchParams({ subid: v.subid })
  if (v.status) q.set('status', v.status)
  if (v.payout) q.set('payout', v.payout)
  if (v.tid) q.set('tid', v.tid)
  q.set('sig', sig)
  return `${origin}/postback?${q}`
}

function postbackSection(settings: Settings, writable: boolean): HTMLElement {
  let isSet = settings.postback_secret === MASK
  const state = h('p', {})
  const showState = () => { state.textContent = isSet ? 'A postback secret is set: every postback must carry a valid sig.' : 'No postback secret: postbacks are unsigned, and anyone with a click id can post a conversion.' }
  showState()
  const secret = h('input', { name: 'signer_secret', type: 'password', autocomplete: 'off', 'aria-describedby': 'signer-hint' })
  const subid = h('input', { name: 'signer_subid', value: '{click_id}' })
  const payout = h('input', { name: 'signer_payout', value: '10' })
  const status = h('input', { name: 'signer_status', value: '' })
  const tid = h('input', { name: 'signer_tid', value: '' })
  const out = h('p', { 'aria-live': 'polite' })
  const fresh = h('div', { 'aria-live': 'polite' })
  const sign = async () => {
    if (!secret.value) { mount(out, 'Enter the secret to sign an example.'); return }
    const url = await signedPostbackUrl(location.origin, secret.value, { subid: subid.value, status: status.value, payout: payout.value, tid: tid.value })
    const button = h('button', { type: 'button', class: 'small', onclick: () => copy(button, url) }, 'Copy')
    mount(out, h('code', { class: 'link', 'data-signed-url': '' }, url), ' ', button)
  }
  const generate = async () => {
    if (isSet && !confirm('Replace the postback secret? Advertisers signing with the old one are refused from now on.')) return
    const value = newSecret()
    try {
      await api('PUT', '/settings', { postback_secret: value })
      secret.value = value
      const button = h('button', { type: 'button', class: 'small', onclick: () => copy(button, value) }, 'Copy')
      mount(fresh, h('p', {}, 'New secret (copy it now, it is not shown again): ', h('code', { 'data-new-secret': '' }, value), ' ', button))
      isSet = true
      showState()
      await sign()
    } catch (err) {
      mount(fresh, h('p', { class: 'form-error', role: 'alert' }, (err as Error).message))
    }
  }
  return h('section', { class: 'card', 'aria-labelledby': 'pb-title' },
    h('h2', { id: 'pb-title' }, 'Postback signature'),
    state,
    writable ? h('button', { type: 'button', onclick: () => void generate() }, 'Generate a secret') : null,
    fresh,
    h('h3', {}, 'Example signed URL'),
    h('p', { id: 'signer-hint' }, 'Signed in this browser; the secret is not sent anywhere. sig = HMAC-SHA256(secret, subid|status|payout|tid).'),
    h('div', { class: 'filters' }, field('Secret', secret), field('subid', subid), field('payout', payout), field('status', status), field('tid', tid)),
    h('button', { type: 'button', class: 'small', onclick: () => void sign() }, 'Sign'),
    out,
  )
}

function input(key: string, value: unknown): HTMLInputElement | HTMLTextAreaElement {
  if (SECRET.test(key)) return h('input', { name: key, type: 'password', autocomplete: 'off', placeholder: value === MASK ? '(set; leave empty to keep)' : '(not set)' })
  if (typeof value === 'boolean') return h('input', { name: key, type: 'checkbox', checked: value })
  if (typeof value === 'number') return h('input', { name: key, type: 'number', value })
  if (Array.isArray(value)) return Object.assign(h('textarea', { name: key, rows: 3, 'aria-describedby': `${key}-hint` }), { value: value.join('\n') })
  return h('input', { name: key, value: value === null || value === undefined ? '' : String(value) })
}

/** A field's value as the API takes it, or undefined when unchanged. */
function changed(key: string, before: unknown, el: HTMLInputElement | HTMLTextAreaElement): unknown {
  if (SECRET.test(key)) return el.value === '' ? undefined : el.value
  if (typeof before === 'boolean') return (el as HTMLInputElement).checked === before ? undefined : (el as HTMLInputElement).checked
  if (typeof before === 'number') return Number(el.value) === before ? undefined : Number(el.value)
  if (Array.isArray(before)) {
    const list = el.value.split(/[\n,]/).map((x) => x.trim()).filter(Boolean)
    return JSON.stringify(list) === JSON.stringify(before) ? undefined : list
  }
  const next = el.value.trim() === '' ? null : el.value.trim()
  return next === (before ?? null) ? undefined : next
}

export async function settingsView(me: Me): Promise<HTMLElement> {
  const root = h('section', { 'aria-labelledby': 'settings-title' })
  const load = async () => {
    const settings = await api<Settings>('GET', '/settings')
    const writable = can(me, 'settings', 'write')
    const keys = Object.keys(settings).filter((k) => k !== 'postback_secret' && !READ_ONLY.has(k)).sort()
    const inputs = new Map(keys.map((k) => [k, input(k, settings[k])]))
    if (!writable) for (const el of inputs.values()) el.setAttribute('disabled', '')
    const form = h('form', { class: 'card', 'aria-labelledby': 'all-settings' },
      h('h2', { id: 'all-settings' }, 'All settings'),
      keys.map((k) => field(k.replace(/_/g, ' '), inputs.get(k)!, Array.isArray(settings[k]) ? 'one per line' : undefined)),
      h('p', { class: 'form-error', role: 'alert' }),
      writable ? h('button', { type: 'submit' }, 'Save settings') : null,
      h('span', { class: 'saved', 'aria-live': 'polite' }),
    )
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      clearErrors(form)
      const body: Record<string, unknown> = {}
      for (const k of keys) {
        const v = changed(k, settings[k], inputs.get(k)!)
        if (v !== undefined) body[k] = v
      }
      try {
        if (Object.keys(body).length) await api('PUT', '/settings', body)
        await load()
        root.querySelector('.saved')!.textContent = Object.keys(body).length ? `Saved ${Object.keys(body).join(', ')}.` : 'Nothing changed.'
      } catch (err) {
        showErrors(form, err)
      }
    })
    const warnings = (settings.warnings as string[] | undefined) ?? []
    mount(root, h('h1', { id: 'settings-title' }, 'Settings'),
      warnings.length ? h('div', { class: 'card', role: 'status' }, h('strong', {}, 'Warnings'), h('ul', {}, warnings.map((w) => h('li', {}, w)))) : null,
      postbackSection(settings, writable), form)
  }
  await load()
  return root
}
