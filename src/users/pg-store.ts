// UserStore on PostgreSQL (several svc instances may share the database). The rules are the SQLite
// store's; what differs is how they stay atomic: update and remove take a lock on the users table that
// only other user writers wait for (reads go on), so two instances cannot both demote or delete "the
// other" owner between a check and a write. Email uniqueness is the unique index (23505 → conflict).
import type { SQL, TransactionSQL } from 'bun'
import type { PgDatabase } from '../db/pg/client'
import { num } from '../db/pg/client'
import { conflict } from '../lib/errors'
import type { AdminUser } from '../auth/permissions'
import { EMAIL_TAKEN } from './rules'
import { lookupEmail, newUserFields, toRecord, toUser, verifyLogin, type NewUserInput, type UserRecord, type UserRow } from './row'
import type { RemoveOutcome, UpdateOutcome, UserChanges, UserStore } from './store'

/** Postgres unique violation (SQLSTATE 23505), as Bun's client reports it in errno. */
const isUniqueViolation = (err: unknown) => (err as { errno?: unknown } | null)?.errno === '23505'

/** A users row with its epoch-ms bigints (strings from Bun's client) as numbers, as on SQLite. */
function fromPg(row: Record<string, unknown> | undefined): UserRow | undefined {
  if (!row) return undefined
  return { ...(row as unknown as UserRow), created_at: num(row.created_at), updated_at: num(row.updated_at) }
}

export class PgUserStore implements UserStore {
  private readonly sql: SQL

  constructor(db: PgDatabase) {
    this.sql = db.sql
  }

  async count(): Promise<number> {
    const [row] = await this.sql`SELECT count(*)::int AS n FROM users`
    return row.n
  }

  async findById(id: number): Promise<AdminUser | null> {
    const row = await this.rowById(this.sql, id)
    return row ? toUser(row) : null
  }

  async findRecord(id: number): Promise<UserRecord | null> {
    const row = await this.rowById(this.sql, id)
    return row ? toRecord(row) : null
  }

  async findByEmail(email: string): Promise<UserRecord | null> {
    const row = await this.rowByEmail(lookupEmail(email))
    return row ? toRecord(row) : null
  }

  async list(afterId: number, limit: number): Promise<UserRecord[]> {
    const rows = await this.sql`SELECT * FROM users WHERE id > ${afterId} ORDER BY id LIMIT ${limit}`
    return rows.map((r: Record<string, unknown>) => toRecord(fromPg(r)!))
  }

  async update(id: number, changes: UserChanges, now = Date.now()): Promise<UpdateOutcome> {
    try {
      return await this.sql.begin(async (tx): Promise<UpdateOutcome> => {
        await lockUsers(tx)
        const current = await this.rowById(tx, id)
        if (!current) return 'not_found'
        if (changes.email !== undefined) {
          const [holder] = await tx`SELECT id FROM users WHERE email = ${changes.email}`
          if (holder && holder.id !== id) return 'email_taken'
        }
        if (current.is_owner === 1 && changes.isOwner === false && (await countOwners(tx)) <= 1) return 'last_owner'
        // One constant statement: an absent change keeps the column (none of them is nullable).
        const permissions = changes.permissions === undefined ? null : JSON.stringify(changes.permissions)
        const owner = changes.isOwner === undefined ? null : changes.isOwner ? 1 : 0
        const newPassword = changes.passwordHash !== undefined
        await tx`UPDATE users SET
            updated_at = ${now},
            email = COALESCE(${changes.email ?? null}::text, email),
            permissions = COALESCE(${permissions}::text, permissions),
            is_owner = COALESCE(${owner}::int, is_owner),
            password_hash = COALESCE(${changes.passwordHash ?? null}::text, password_hash),
            session_epoch = session_epoch + ${newPassword ? 1 : 0}::int
          WHERE id = ${id}`
        return 'updated'
      })
    } catch (err) {
      // The transaction is rolled back; nothing of this update was written.
      if (isUniqueViolation(err)) return 'email_taken'
      throw err
    }
  }

  async remove(id: number, by: { actorId: number | null; mayRemoveOwner: boolean }): Promise<RemoveOutcome> {
    return this.sql.begin(async (tx): Promise<RemoveOutcome> => {
      await lockUsers(tx)
      const target = await this.rowById(tx, id)
      if (!target) return 'not_found'
      if (target.id === by.actorId) return 'self'
      if (target.is_owner === 1 && !by.mayRemoveOwner) return 'owner'
      if (target.is_owner === 1 && (await countOwners(tx)) <= 1) return 'last_owner'
      await tx`DELETE FROM users WHERE id = ${id}`
      return 'removed'
    })
  }

  async authenticate(email: string, password: string): Promise<AdminUser | null> {
    return verifyLogin(await this.rowByEmail(lookupEmail(email)), password)
  }

  async create(input: NewUserInput): Promise<UserRecord> {
    const { email, password, permissions, owner } = newUserFields(input)
    // Checked first so a taken email costs no hashing; the unique index decides races.
    if (await this.rowByEmail(email)) throw conflict(EMAIL_TAKEN)
    const hash = await Bun.password.hash(password)
    const now = Date.now()
    try {
      const [row] = await this.sql`
        INSERT INTO users (email, password_hash, permissions, is_owner, session_epoch, created_at, updated_at)
        VALUES (${email}, ${hash}, ${permissions}, ${owner}, 0, ${now}, ${now})
        RETURNING *`
      return toRecord(fromPg(row)!)
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(EMAIL_TAKEN)
      throw err
    }
  }

  async revokeSessions(id: number): Promise<void> {
    await this.sql`UPDATE users SET session_epoch = session_epoch + 1, updated_at = ${Date.now()} WHERE id = ${id}`
  }

  private async rowById(q: SQL | TransactionSQL, id: number): Promise<UserRow | undefined> {
    const [row] = await q`SELECT * FROM users WHERE id = ${id}`
    return fromPg(row)
  }

  private async rowByEmail(email: string): Promise<UserRow | undefined> {
    const [row] = await this.sql`SELECT * FROM users WHERE email = ${email}`
    return fromPg(row)
  }
}

/**
 * SHARE ROW EXCLUSIVE conflicts with itself and with plain writes, not with reads: user writers queue
 * behind each other for the rest of the transaction, as they do on SQLite's single writer.
 */
const lockUsers = (tx: TransactionSQL) => tx`LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE`

async function countOwners(tx: TransactionSQL): Promise<number> {
  const [row] = await tx`SELECT count(*)::int AS n FROM users WHERE is_owner = 1`
  return row.n
}
