// Payment accounts, one module for both engines (db/store-db.ts). Secrets pass through as stored: encrypted
// (commerce/accounts.ts holds the SecretBox). A write that reads first locks the row (FOR UPDATE on Postgres;
// SQLite's writer is alone), so a delete and a product naming the account take turns (products.ts).
import { isUniqueViolation } from '../../db/errors'
import { raw, sql } from '../../db/sql'
import type { Queries, StoreDb } from '../../db/store-db'
import { conflict, notFound } from '../../lib/errors'
import type { Page } from '../../lib/paging'
import type { NewPaymentAccount, PaymentAccountChanges, PaymentAccountRow } from './catalog'

const ACCOUNT = raw(`id, type, name, account_id AS "accountId", webhook_secret AS "webhookSecret", api_key AS "apiKey",
  client_id AS "clientId", client_secret AS "clientSecret", webhook_registered_at AS "webhookRegisteredAt",
  created_at AS "createdAt", updated_at AS "updatedAt"`)

const accountMissing = () => notFound('payment account not found')
const accountIdTaken = () => conflict('account_id: already used by another payment account')
const accountUsed = (p: { id: number; name: string }) => conflict(`payment account is used by product "${p.name}" (id ${p.id})`)

const byId = (id: number) => sql`SELECT ${ACCOUNT} FROM payment_accounts WHERE id = ${id}`

const merge = (row: PaymentAccountRow, changes: PaymentAccountChanges): PaymentAccountRow => {
  const out = { ...row }
  for (const [k, v] of Object.entries(changes)) if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v
  return out
}

export const accountStore = (db: StoreDb) => ({
  listAccounts: (page: Page): Promise<PaymentAccountRow[]> =>
    db.all<PaymentAccountRow>(sql`SELECT ${ACCOUNT} FROM payment_accounts WHERE id > ${page.afterId} ORDER BY id LIMIT ${page.limit + 1}`),

  findAccount: (id: number): Promise<PaymentAccountRow | undefined> => db.get<PaymentAccountRow>(byId(id)),

  findAccountByAccountId: (accountId: string): Promise<PaymentAccountRow | undefined> =>
    db.get<PaymentAccountRow>(sql`SELECT ${ACCOUNT} FROM payment_accounts WHERE account_id = ${accountId}`),

  registeredPayAAccounts: (): Promise<PaymentAccountRow[]> =>
    db.all<PaymentAccountRow>(sql`SELECT ${ACCOUNT} FROM payment_accounts WHERE type = 'pay-a' AND webhook_registered_at IS NOT NULL
      ORDER BY id`),

  async createAccount(v: NewPaymentAccount): Promise<PaymentAccountRow> {
    const now = Date.now()
    try {
      return (await db.get<PaymentAccountRow>(sql`INSERT INTO payment_accounts (type, name, account_id, webhook_secret, api_key, client_id,
          client_secret, created_at, updated_at)
        VALUES (${v.type}, ${v.name}, ${v.accountId}, ${v.webhookSecret}, ${v.apiKey}, ${v.clientId}, ${v.clientSecret}, ${now}, ${now})
        RETURNING ${ACCOUNT}`))!
    } catch (err) {
      if (isUniqueViolation(err)) throw accountIdTaken()
      throw err
    }
  },

  updateAccount: (id: number, changes: PaymentAccountChanges): Promise<PaymentAccountRow> =>
    db.atomically(function* (q: Queries) {
      const row: PaymentAccountRow | undefined = yield q.get(sql`${byId(id)} ${db.forUpdate}`)
      if (!row) throw accountMissing()
      const m = merge(row, changes)
      const updated: PaymentAccountRow | undefined = yield q.get(sql`UPDATE payment_accounts SET name = ${m.name},
          webhook_secret = ${m.webhookSecret}, api_key = ${m.apiKey}, client_id = ${m.clientId}, client_secret = ${m.clientSecret},
          webhook_registered_at = ${m.webhookRegisteredAt}, updated_at = ${Date.now()}
        WHERE id = ${id} RETURNING ${ACCOUNT}`)
      return updated!
    }),

  async markWebhookRegistered(id: number, encryptedSecret: string, now: number): Promise<void> {
    const changed = await db.run(sql`UPDATE payment_accounts SET webhook_secret = ${encryptedSecret}, webhook_registered_at = ${now},
      updated_at = ${now} WHERE id = ${id}`)
    if (changed === 0) throw accountMissing()
  },

  /** exists → used by a product (the first, by id) → delete. */
  deleteAccount: (id: number): Promise<void> =>
    db.atomically(function* (q: Queries) {
      const row: unknown = yield q.get(sql`SELECT id FROM payment_accounts WHERE id = ${id} ${db.forUpdate}`)
      if (!row) throw accountMissing()
      const user: { id: number; name: string } | undefined = yield q.get(sql`SELECT id, name FROM products WHERE payment_account_id = ${id}
        ORDER BY id LIMIT 1`)
      if (user) throw accountUsed(user)
      yield q.run(sql`DELETE FROM payment_accounts WHERE id = ${id}`)
    }),
})
