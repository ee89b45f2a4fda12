// Customers and their single-use sign-in tokens, on both engines. A token is consumed by one atomic
// UPDATE (unused and unexpired → used), so two clicks on one link cannot both sign in.
import type { SQL } from 'bun'
import type { Database, RawDb, RawStatement } from '../../db/client'
import type { AnyDatabase } from '../../db/engine'

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
  return database.engine === 'postgres' ? new PgCustomerStore(database.sql) : new SqliteCustomerStore(database)
}

const COLS = 'id, email, session_epoch AS sessionEpoch, created_at AS createdAt, last_login_at AS lastLoginAt'

class SqliteCustomerStore implements CustomerStore {
  private readonly raw: RawDb
  private readonly known: RawStatement
  private readonly upsert: RawStatement
  private readonly insertToken: RawStatement
  private readonly useToken: RawStatement
  private readonly tokenState: RawStatement
  private readonly login: RawStatement
  private readonly byId: RawStatement
  private readonly bump: RawStatement
  private readonly prune: RawStatement

  constructor(database: Database) {
    const raw = (this.raw = database.raw)
    this.known = raw.prepare('SELECT EXISTS (SELECT 1 FROM customers WHERE email = $email) OR EXISTS (SELECT 1 FROM email_subscribers WHERE email = $email) AS known')
    this.upsert = raw.prepare('INSERT INTO customers (email, created_at) VALUES ($email, $now) ON CONFLICT (email) DO UPDATE SET email = excluded.email RETURNING id')
    this.insertToken = raw.prepare(
      'INSERT INTO customer_login_tokens (customer_id, token_hash, redirect, expires_at, created_at) VALUES ($customerId, $hash, $redirect, $expiresAt, $now)',
    )
    this.useToken = raw.prepare(
      'UPDATE customer_login_tokens SET used_at = $now WHERE token_hash = $hash AND used_at IS NULL AND expires_at > $now RETURNING customer_id AS customerId, redirect',
    )
    this.tokenState = raw.prepare('SELECT used_at AS usedAt FROM customer_login_tokens WHERE token_hash = $hash')
    this.login = raw.prepare('UPDATE customers SET last_login_at = $now WHERE id = $id')
    this.byId = raw.prepare(`SELECT ${COLS} FROM customers WHERE id = $id`)
    this.bump = raw.prepare('UPDATE customers SET session_epoch = session_epoch + 1 WHERE id = $id')
    this.prune = raw.prepare('DELETE FROM customer_login_tokens WHERE expires_at < $before')
  }

  async isKnown(email: string) {
    return (this.known.get({ email }) as { known: number }).known === 1
  }

  async issueToken(email: string, hash: string, redirect: string | null, expiresAt: number, now: number) {
    return this.raw.transaction(() => {
      const { id } = this.upsert.get({ email, now }) as { id: number }
      this.insertToken.run({ customerId: id, hash, redirect, expiresAt, now })
      return id
    })()
  }

  async consumeToken(hash: string, now: number): Promise<Consumed> {
    return this.raw.transaction((): Consumed => {
      const used = this.useToken.get({ hash, now }) as { customerId: number; redirect: string | null } | null
      if (!used) {
        const state = this.tokenState.get({ hash }) as { usedAt: number | null } | null
        return { ok: false, reason: !state ? 'unknown' : state.usedAt !== null ? 'used' : 'expired' }
      }
      this.login.run({ id: used.customerId, now })
      return { ok: true, customer: this.byId.get({ id: used.customerId }) as Customer, redirect: used.redirect }
    })()
  }

  async find(id: number) {
    return (this.byId.get({ id }) as Customer | null) ?? undefined
  }

  async endSessions(id: number) {
    this.bump.run({ id })
  }

  async pruneTokens(before: number) {
    this.prune.run({ before })
  }
}

const customerRow = (r: Record<string, unknown>): Customer => ({
  id: Number(r.id), email: String(r.email), sessionEpoch: Number(r.sessionEpoch), createdAt: Number(r.createdAt),
  lastLoginAt: r.lastLoginAt === null ? null : Number(r.lastLoginAt),
})

class PgCustomerStore implements CustomerStore {
  private readonly cols: SQL.Query<unknown>

  constructor(private readonly sql: SQL) {
    this.cols = sql`id, email, session_epoch AS "sessionEpoch", created_at AS "createdAt", last_login_at AS "lastLoginAt"`
  }

  async isKnown(email: string) {
    const [r] = await this.sql`SELECT EXISTS (SELECT 1 FROM customers WHERE email = ${email}) OR EXISTS (SELECT 1 FROM email_subscribers WHERE email = ${email}) AS known`
    return r.known === true
  }

  async issueToken(email: string, hash: string, redirect: string | null, expiresAt: number, now: number) {
    return (await this.sql.begin(async (tx) => {
      const [c] = await tx`INSERT INTO customers (email, created_at) VALUES (${email}, ${now}::bigint)
        ON CONFLICT (email) DO UPDATE SET email = excluded.email RETURNING id`
      await tx`INSERT INTO customer_login_tokens (customer_id, token_hash, redirect, expires_at, created_at)
        VALUES (${c.id}::int8, ${hash}, ${redirect}, ${expiresAt}::bigint, ${now}::bigint)`
      return Number(c.id)
    })) as number
  }

  async consumeToken(hash: string, now: number): Promise<Consumed> {
    return (await this.sql.begin(async (tx): Promise<Consumed> => {
      const [used] = await tx`UPDATE customer_login_tokens SET used_at = ${now}::bigint
        WHERE token_hash = ${hash} AND used_at IS NULL AND expires_at > ${now}::bigint RETURNING customer_id AS "customerId", redirect`
      if (!used) {
        const [state] = await tx`SELECT used_at AS "usedAt" FROM customer_login_tokens WHERE token_hash = ${hash}`
        return { ok: false, reason: !state ? 'unknown' : state.usedAt !== null ? 'used' : 'expired' }
      }
      const [c] = await tx`UPDATE customers SET last_login_at = ${now}::bigint WHERE id = ${used.customerId}::int8 RETURNING ${this.cols}`
      return { ok: true, customer: customerRow(c), redirect: used.redirect as string | null }
    })) as Consumed
  }

  async find(id: number) {
    const [r] = await this.sql`SELECT ${this.cols} FROM customers WHERE id = ${id}::int8`
    return r ? customerRow(r) : undefined
  }

  async endSessions(id: number) {
    await this.sql`UPDATE customers SET session_epoch = session_epoch + 1 WHERE id = ${id}::int8`
  }

  async pruneTokens(before: number) {
    await this.sql`DELETE FROM customer_login_tokens WHERE expires_at < ${before}::bigint`
  }
}
