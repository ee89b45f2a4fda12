// The admin users store, one module for both engines (db/store-db.ts). It only stores: what may change
// (the email another user holds, the last owner, oneself) is decided by the steps in changes.ts, which run
// inside one transaction with the queries here, so a check and its write are one atomic step on either
// engine (Postgres: the users table is locked against other writers for it; SQLite has one writer).
import { isUniqueViolation } from '../db/errors'
import { sql, type Sql } from '../db/sql'
import { storeDb, type Queries, type StoreDb } from '../db/store-db'
import type { AnyDatabase } from '../db/engine'
import { conflict } from '../lib/errors'
import type { AdminUser } from '../lib/permissions'
import type { MaybeAsync } from '../lib/steps'
import { EMAIL_TAKEN } from './rules'
import { removeSteps, updateSteps, type RemoveOutcome, type UpdateOutcome, type UserChanges } from './changes'
import { lookupEmail, newUserFields, toRecord, toUser, verifyLogin, type NewUserInput, type UserRecord, type UserRow } from './row'

export type { UserRecord, NewUserInput } from './row'
export type { RemoveOutcome, UpdateOutcome, UserChanges } from './changes'

/** The users queries a check-then-write step runs, bound to its transaction. */
export interface UserQueries {
  byId(id: number): MaybeAsync<UserRow | undefined>
  idByEmail(email: string): MaybeAsync<{ id: number } | undefined>
  owners(): MaybeAsync<{ n: number } | undefined>
  /** Writes what `changes` holds; a new password hash also bumps the session epoch. */
  write(id: number, changes: UserChanges, now: number): MaybeAsync<number>
  delete(id: number): MaybeAsync<number>
  /** Queues other user writers behind this transaction (Postgres; nothing on SQLite). */
  lock(): MaybeAsync<number>
}

const byIdSql = (id: number) => sql`SELECT * FROM users WHERE id = ${id}`
const byEmailSql = (email: string) => sql`SELECT * FROM users WHERE email = ${email}`

/** Admin users: what the session guard, login, the CLI, start-up and the users verbs share. */
export class UserStore {
  private readonly db: StoreDb

  constructor(database: AnyDatabase) {
    this.db = storeDb(database)
  }

  async count(): Promise<number> {
    return Number((await this.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM users`))!.n)
  }

  /** The admin guard's lookup on every admin request (session epoch included). */
  async findById(id: number): Promise<AdminUser | null> {
    const row = await this.db.get<UserRow>(byIdSql(id))
    return row ? toUser(row) : null
  }

  async findRecord(id: number): Promise<UserRecord | null> {
    const row = await this.db.get<UserRow>(byIdSql(id))
    return row ? toRecord(row) : null
  }

  /** The user with this email (normalised like login), for `svc user passwd --email`. */
  async findByEmail(email: string): Promise<UserRecord | null> {
    const row = await this.db.get<UserRow>(byEmailSql(lookupEmail(email)))
    return row ? toRecord(row) : null
  }

  /** Users with id > afterId, in id order. */
  async list(afterId: number, limit: number): Promise<UserRecord[]> {
    const rows = await this.db.all<UserRow>(sql`SELECT * FROM users WHERE id > ${afterId} ORDER BY id LIMIT ${limit}`)
    return rows.map(toRecord)
  }

  /** Writes the given columns (changes.ts decides whether it may); two requests cannot both take one email or demote "the other" owner. */
  async update(id: number, changes: UserChanges, now = Date.now()): Promise<UpdateOutcome> {
    try {
      return await this.db.atomically((q) => updateSteps(this.queries(q), id, changes, now))
    } catch (err) {
      // The unique index decides a race the check did not see; the transaction rolled back.
      if (isUniqueViolation(err)) return 'email_taken'
      throw err
    }
  }

  /** Deletes a user unless it is the actor, an owner the actor may not remove, or the last owner (atomic). */
  remove(id: number, by: { actorId: number | null; mayRemoveOwner: boolean }): Promise<RemoveOutcome> {
    return this.db.atomically((q) => removeSteps(this.queries(q), id, by))
  }

  /** Returns the user only when the password matches; always spends one hash verification. */
  async authenticate(email: string, password: string): Promise<AdminUser | null> {
    return verifyLogin(await this.db.get<UserRow>(byEmailSql(lookupEmail(email))), password)
  }

  /** Validates email and password, hashes, inserts; conflict (409) when the email is taken. */
  async create(input: NewUserInput): Promise<UserRecord> {
    const { email, password, permissions, owner } = newUserFields(input)
    // Checked first so a taken email costs no hashing; the unique index decides races (during the hash too).
    if (await this.db.get(byEmailSql(email))) throw conflict(EMAIL_TAKEN)
    const hash = await Bun.password.hash(password)
    const now = Date.now()
    try {
      const row = await this.db.get<UserRow>(sql`
        INSERT INTO users (email, password_hash, permissions, is_owner, session_epoch, created_at, updated_at)
        VALUES (${email}, ${hash}, ${permissions}, ${owner}, 0, ${now}, ${now}) RETURNING *`)
      return toRecord(row!)
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(EMAIL_TAKEN)
      throw err
    }
  }

  /** Invalidates every session cookie of the user (logout, password change). */
  async revokeSessions(id: number): Promise<void> {
    await this.db.run(sql`UPDATE users SET session_epoch = session_epoch + 1, updated_at = ${Date.now()} WHERE id = ${id}`)
  }

  private queries(q: Queries): UserQueries {
    const db = this.db
    return {
      byId: (id) => q.get<UserRow>(byIdSql(id)),
      idByEmail: (email) => q.get<{ id: number }>(sql`SELECT id FROM users WHERE email = ${email}`),
      owners: () => q.get<{ n: number }>(sql`SELECT count(*) AS n FROM users WHERE is_owner = 1`),
      write: (id, changes, now) => q.run(updateSql(id, changes, now)),
      delete: (id) => q.run(sql`DELETE FROM users WHERE id = ${id}`),
      lock: () => db.lockTable(q, 'users'),
    }
  }
}

/** One UPDATE with the columns `changes` holds; column names come from this fixed text, never from input. */
function updateSql(id: number, c: UserChanges, now: number): Sql {
  let sets = sql`updated_at = ${now}`
  if (c.email !== undefined) sets = sql`${sets}, email = ${c.email}`
  if (c.permissions !== undefined) sets = sql`${sets}, permissions = ${JSON.stringify(c.permissions)}`
  if (c.isOwner !== undefined) sets = sql`${sets}, is_owner = ${c.isOwner}`
  if (c.passwordHash !== undefined) sets = sql`${sets}, password_hash = ${c.passwordHash}, session_epoch = session_epoch + 1`
  return sql`UPDATE users SET ${sets} WHERE id = ${id}`
}
