// Payment accounts (native commerce, section commerce): the merchant's accounts at the payment processors.
// `account_id` is generated (the path segment of /webhook/pay-a/:account_id and /webhook/pay-b/:account_id)
// and never changes, nor does `type`. The secrets are write-only: encrypted with the instance's SecretBox
// before they reach the store, never answered (the record says has_webhook_secret, has_api_key,
// has_client_credentials instead). PaymentAccounts is what the receivers and the checkout read: the same
// rows with the secrets decrypted.
import { randomBytes } from 'node:crypto'
import { Type as t } from '@sinclair/typebox'
import { crudVerbs, found } from '../lib/verb-inputs'
import type { SecretBox } from '../lib/crypto'
import { invalid } from '../lib/errors'
import { Int, requiredText } from '../lib/fields'
import { log } from '../lib/log'
import { iso } from '../lib/time'
import { WEBHOOK_SECRET_MIN } from '../settings'
import {
  PAYMENT_ACCOUNT_TYPES,
  type CommerceCatalogStore, type PaymentAccountChanges, type PaymentAccountRow, type PaymentAccountType,
} from './store/catalog'

export { PAYMENT_ACCOUNT_TYPES, type PaymentAccountType } from './store/catalog'

/** Longest secret accepted (the processors' keys and webhook ids are far shorter). */
export const MAX_SECRET = 500

// ── account ids ──

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567'
/** `acct_` + 20 lower-case base32 characters (100 bits from the CSPRNG). */
export const ACCOUNT_ID = /^acct_[a-z2-7]{20}$/

/** A fresh account id: each random byte gives one base32 character (256 is a multiple of 32: unbiased). */
export function newAccountId(): string {
  let id = 'acct_'
  for (const b of randomBytes(20)) id += BASE32[b & 31]
  return id
}

// ── records ──

const nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()])
const secretInput = (description: string) =>
  t.Optional(t.Union([t.String({ description: `${description}; write-only, at most ${MAX_SECRET} characters; null clears it` }), t.Null()]))

const accountFields = {
  type: t.String({ description: 'pay-a or pay-b; cannot be changed afterwards' }),
  name: t.String({ maxLength: 200 }),
  webhook_secret: secretInput("pay-a: the webhook endpoint's signing secret (whsec_…); pay-b: the webhook id"),
  api_key: secretInput('pay-a only: the secret API key'),
  client_id: secretInput('pay-b only: the OAuth client id'),
  client_secret: secretInput('pay-b only: the OAuth client secret'),
}

export const PaymentAccountCreate = t.Object(accountFields)
export const PaymentAccountPatch = t.Partial(t.Object({
  ...accountFields,
  account_id: t.String({ description: 'read-only: a PATCH may repeat it, never change it' }),
}))
export type PaymentAccountInput = Partial<typeof PaymentAccountPatch.static>

export const PaymentAccountRecord = t.Object({
  id: Int(),
  type: t.String({ description: 'pay-a or pay-b' }),
  name: t.String(),
  account_id: t.String({ description: 'generated; the path segment of the webhook URL' }),
  webhook_path: t.String({ description: 'where the processor delivers this account\'s webhooks: /webhook/<type>/<account_id>' }),
  has_webhook_secret: t.Boolean(),
  has_api_key: t.Boolean(),
  has_client_credentials: t.Boolean({ description: 'both client_id and client_secret are set' }),
  webhook_registered_at: nullable(t.String({ format: 'date-time', description: 'when svc registered its webhook endpoint at the processor' })),
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
})

/** The public shape: never a secret, only whether it is set. */
export const renderPaymentAccount = (r: PaymentAccountRow): typeof PaymentAccountRecord.static => ({
  id: r.id,
  type: r.type,
  name: r.name,
  account_id: r.accountId,
  webhook_path: `/webhook/${r.type}/${r.accountId}`,
  has_webhook_secret: r.webhookSecret !== null,
  has_api_key: r.apiKey !== null,
  has_client_credentials: r.clientId !== null && r.clientSecret !== null,
  webhook_registered_at: r.webhookRegisteredAt === null ? null : iso(r.webhookRegisteredAt),
  created_at: iso(r.createdAt),
  updated_at: iso(r.updatedAt),
})

// ── field rules ──

/** C0 and C1 control characters (tabs and line breaks included): no key or id has one. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

function accountType(value: unknown): PaymentAccountType {
  if (typeof value !== 'string' || !(PAYMENT_ACCOUNT_TYPES as readonly string[]).includes(value)) {
    throw invalid(`type: must be one of ${PAYMENT_ACCOUNT_TYPES.join(', ')}`)
  }
  return value as PaymentAccountType
}

/** undefined: unchanged; null: clear; else trimmed, non-empty, bounded, printable. */
export function secretValue(value: unknown, field: string): string | null | undefined {
  if (value === undefined || value === null) return value
  if (typeof value !== 'string') throw invalid(`${field}: must be a string or null`)
  const s = value.trim()
  if (s === '') throw invalid(`${field}: must not be empty (null clears it)`)
  if (s.length > MAX_SECRET) throw invalid(`${field}: must be at most ${MAX_SECRET} characters`)
  if (CONTROL.test(s)) throw invalid(`${field}: must not contain control characters`)
  return s
}

/** Which type each credential belongs to (webhook_secret belongs to both). */
const ONLY_FOR: Record<string, PaymentAccountType> = { api_key: 'pay-a', client_id: 'pay-b', client_secret: 'pay-b' }

const SECRETS = [
  ['webhook_secret', 'webhookSecret'],
  ['api_key', 'apiKey'],
  ['client_id', 'clientId'],
  ['client_secret', 'clientSecret'],
] as const

/** The secrets the input sets or clears, checked and encrypted (a credential of the other type is a 400). */
function secrets(input: PaymentAccountInput, type: PaymentAccountType, box: SecretBox): PaymentAccountChanges {
  const out: PaymentAccountChanges = {}
  for (const [field, key] of SECRETS) {
    const value = secretValue(input[field], field)
    if (value === undefined) continue
    const only = ONLY_FOR[field]
    if (value !== null && only && only !== type) throw invalid(`${field}: only for ${only} accounts`)
    // pay-a's signing secret is what a forger must guess. pay-b's field holds the provider's webhook id, no
    // secret (the provider's API verifies each event), so no length rule there.
    if (field === 'webhook_secret' && type === 'pay-a' && value !== null && value.length < WEBHOOK_SECRET_MIN) {
      throw invalid(`webhook_secret: must be at least ${WEBHOOK_SECRET_MIN} characters (a short secret can be guessed)`)
    }
    out[key] = value === null ? null : box.encrypt(value)
  }
  return out
}

// ── verbs ──

export interface PaymentAccountDeps {
  store: CommerceCatalogStore
  box: SecretBox
}

export function paymentAccountVerbs({ store, box }: PaymentAccountDeps) {
  return crudVerbs({
    name: 'commerce.payment-accounts', what: 'payment account', permissions: { read: 'commerce:read', write: 'commerce:write' },
    summaries: {
      list: 'List payment accounts (secrets never shown)',
      get: 'Get a payment account (secrets never shown)',
      create: 'Create a payment account (account_id is generated; secrets are write-only)',
      update: 'Change a payment account: its name and secrets (null clears one); type and account_id cannot change',
      delete: 'Delete a payment account (conflict while a product uses it)',
    },
    inputs: { create: PaymentAccountCreate, patch: PaymentAccountPatch },
    list: (page) => store.listAccounts(page), find: (id) => store.findAccount(id), delete: (id) => store.deleteAccount(id),
    create(input) {
      const type = accountType(input.type)
      const name = requiredText(input.name, 'name')
      const s = secrets(input, type, box)
      return store.createAccount({
        type, name, accountId: newAccountId(),
        webhookSecret: s.webhookSecret ?? null, apiKey: s.apiKey ?? null, clientId: s.clientId ?? null, clientSecret: s.clientSecret ?? null,
      })
    },
    async update(id, input) {
      const row = await found(store.findAccount(id), 'payment account')
      if (input.type !== undefined && input.type !== row.type) throw invalid('type: cannot be changed; create another payment account')
      if (input.account_id !== undefined && input.account_id !== row.accountId) throw invalid('account_id: is generated and cannot be changed')
      const changes = secrets(input, row.type, box)
      if (input.name !== undefined) changes.name = requiredText(input.name, 'name')
      // Without its secret a registered endpoint cannot be verified: the checkout registers it afresh.
      if (changes.webhookSecret === null) changes.webhookRegisteredAt = null
      return store.updateAccount(id, changes)
    },
  })
}

export type PaymentAccountVerbs = ReturnType<typeof paymentAccountVerbs>

// ── decrypted reads for the receivers and the checkout ──

/**
 * A payment account with its secrets in plaintext (null: not set, or unreadable under this SVC_SECRET): the
 * stored row's fields, the four secrets decrypted.
 */
export type PaymentAccount = Omit<PaymentAccountRow, 'createdAt' | 'updatedAt'>

export class PaymentAccounts {
  /** Unreadable secrets already logged (once each, not on every webhook). */
  private readonly unreadable = new Set<string>()

  constructor(private readonly store: CommerceCatalogStore, private readonly box: SecretBox) {}

  /** The account a webhook path names; anything that is not an account id names none (no query). */
  async byAccountId(accountId: string): Promise<PaymentAccount | undefined> {
    if (typeof accountId !== 'string' || !ACCOUNT_ID.test(accountId)) return undefined
    const row = await this.store.findAccountByAccountId(accountId)
    return row && this.open(row)
  }

  async byId(id: number): Promise<PaymentAccount | undefined> {
    if (!Number.isSafeInteger(id) || id < 1) return undefined
    const row = await this.store.findAccount(id)
    return row && this.open(row)
  }

  /** pay-a accounts whose webhook endpoint svc registered at the processor, by id. */
  async registeredPayA(): Promise<PaymentAccount[]> {
    return (await this.store.registeredPayAAccounts()).map((r) => this.open(r))
  }

  /**
   * Logs one warning per pay-a account whose signing secret is shorter than WEBHOOK_SECRET_MIN (stored before
   * that rule): said at start, like the settings warnings. Returns their ids.
   */
  async warnShortSecrets(): Promise<number[]> {
    const short: number[] = []
    for (let afterId = 0; ;) {
      const rows = await this.store.listAccounts({ afterId, limit: 200 })
      for (const r of rows.slice(0, 200)) {
        if (r.type !== 'pay-a' || r.webhookSecret === null) continue
        const secret = this.decrypt(r, 'webhook_secret', r.webhookSecret)
        if (secret !== null && secret.length < WEBHOOK_SECRET_MIN) short.push(r.id)
      }
      if (rows.length <= 200) break
      afterId = rows[199]!.id
    }
    for (const id of short) {
      log.warn(`payment account ${id}: its webhook_secret is shorter than ${WEBHOOK_SECRET_MIN} characters; anyone can guess it. Roll the endpoint's signing secret at the processor and set the new one.`, { id })
    }
    return short
  }

  /** Stores the endpoint secret the processor answered at registration (encrypted) and when it happened. */
  async markWebhookRegistered(id: number, secret: string, now: number = Date.now()): Promise<void> {
    if (typeof secret !== 'string' || secret === '') throw new Error('markWebhookRegistered: the endpoint secret is empty')
    await this.store.markWebhookRegistered(id, this.box.encrypt(secret), now)
  }

  private open(r: PaymentAccountRow): PaymentAccount {
    return {
      id: r.id,
      type: r.type,
      name: r.name,
      accountId: r.accountId,
      webhookSecret: this.decrypt(r, 'webhook_secret', r.webhookSecret),
      apiKey: this.decrypt(r, 'api_key', r.apiKey),
      clientId: this.decrypt(r, 'client_id', r.clientId),
      clientSecret: this.decrypt(r, 'client_secret', r.clientSecret),
      webhookRegisteredAt: r.webhookRegisteredAt,
    }
  }

  private decrypt(r: PaymentAccountRow, field: string, stored: string | null): string | null {
    if (stored === null) return null
    try {
      return this.box.decrypt(stored)
    } catch {
      // Encrypted under another SVC_SECRET (or damaged): unusable, so treated as unset; the merchant sets it again.
      const key = `${r.id}:${field}:${stored}`
      if (this.unreadable.has(key)) return null
      this.unreadable.add(key)
      log.error('payment account: cannot read a stored secret (was SVC_SECRET changed?); treating it as unset', { id: r.id, field })
      return null
    }
  }
}
