// Customers and their single-use sign-in tokens, one module for both engines (db/store-db.ts). A token is consumed by one atomic
// UPDATE (unused and unexpired → used), so two clicks on one link cannot both sign in.
import type { AnyDatabase } from '../../db/engine'
import { raw, sql } from '../../db/sql'
import { storeDb, type StoreDb } from '../../db/store-db'
import type { Steps } from '../../lib/steps'

export interface Customer {
  id: number
  email: string
  sessionEpoch: number
  createdAt: number
  lastLoginAt: number | null
}

export type Consumed = { ok: true; customer: Customer; redirect: string | null } | { ok: false; reason: 'used' | 'expired' | 'unknown' }

export interface CustomerStore {
  /** Whether svc knows the address: a customer already, or a subscriber of any list. */
  isKnown(email: string): Promise<boolean>
  /** Creates the customer on first use, stores the token's hash; returns the customer id. */
  issueToken(email: string, tokenHash: string, redirect: string | null, expiresAt: number, now: number): Promise<number>
  consumeToken(tokenHash: string, now: number): Promise<Consumed>
  find(id: number): Promise<Customer | undefined>
  /** Ends every session of the customer (logout). */
  endSessions(id: number): Promise<void>
  /** Tokens that expired before `before` (kept a day for the "expired" page), deleted. */
  pruneTokens(before: number): Promise<void>
}

export function customerStore(database: AnyDatabase): CustomerStore {
  return new EmailCustomerStore(database)
}

const COLS = raw('id, email, session_epoch AS "sessionEpoch", created_at AS "createdAt", last_login_at AS "lastLoginAt"')

class EmailCustomerStore implements CustomerStore {
  private readonly db: StoreDb

  constructor(database: AnyDatabase) {
    this.db = storeDb(database)
  }

  async isKnown(email: string) {
    const row = await this.db.get(sql`SELECT 1 AS known
      WHERE EXISTS (SELECT 1 FROM customers WHERE email = ${email}) OR EXISTS (SELECT 1 FROM email_subscribers WHERE email = ${email})`)
    return row !== undefined
  }

  issueToken(email: string, hash: string, redirect: string | null, expiresAt: number, now: number) {
    return this.db.atomically(function* (q) {
      const c: { id: number } | undefined = yield q.get(sql`INSERT INTO customers (email, created_at) VALUES (${email}, ${now})
        ON CONFLICT (email) DO UPDATE SET email = excluded.email RETURNING id`)
      yield q.run(sql`INSERT INTO customer_login_tokens (customer_id, token_hash, redirect, expires_at, created_at)
        VALUES (${c!.id}, ${hash}, ${redirect}, ${expiresAt}, ${now})`)
      return c!.id
    })
  }

  consumeToken(hash: string, now: number): Promise<Consumed> {
    return this.db.atomically(function* (q): Steps<Consumed> {
      const used: { customerId: number; redirect: string | null } | undefined = yield q.get(sql`UPDATE customer_login_tokens SET used_at = ${now}
        WHERE token_hash = ${hash} AND used_at IS NULL AND expires_at > ${now} RETURNING customer_id AS "customerId", redirect`)
      if (!used) {
        const state: { usedAt: unknown } | undefined = yield q.get(sql`SELECT used_at AS "usedAt" FROM customer_login_tokens WHERE token_hash = ${hash}`)
        return { ok: false, reason: !state ? 'unknown' : state.usedAt !== null ? 'used' : 'expired' }
      }
      const customer: Customer | undefined = yield q.get(sql`UPDATE customers SET last_login_at = ${now} WHERE id = ${used.customerId} RETURNING ${COLS}`)
      return { ok: true, customer: customer!, redirect: used.redirect }
    })
  }

  find(id: number) {
    return this.db.get<Customer>(sql`SELECT ${COLS} FROM customers WHERE id = ${id}`)
  }

  async endSessions(id: number) {
    await this.db.run(sql`UPDATE customers SET session_epoch = session_epoch + 1 WHERE id = ${id}`)
  }

  async pruneTokens(before: number) {
    await this.db.run(sql`DELETE FROM customer_login_tokens WHERE expires_at < ${before}`)
  }
}
