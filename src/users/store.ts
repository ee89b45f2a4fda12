// The admin users boundary (UserStore) and its SQLite implementation; the Postgres one is pg-store.ts and
// createUserStore (create-store.ts) picks by engine. Every method is async, findById included: the admin
// guard awaits it on every admin request (on SQLite it is still one indexed read, answered at once).
import type { RawDb, RawStatement } from '../db/client'
import { isUniqueViolation } from '../db/errors'
import { conflict } from '../lib/errors'
import type { AdminUser, Permissions } from '../auth/permissions'
import { EMAIL_TAKEN } from './rules'
import { lookupEmail, newUserFields, toRecord, toUser, verifyLogin, type NewUserInput, type UserRecord, type UserRow } from './row'

export type { UserRecord, NewUserInput } from './row'

export interface UserChanges {
  email?: string
  passwordHash?: string
  permissions?: Permissions
  isOwner?: boolean
}

export type UpdateOutcome = 'updated' | 'not_found' | 'email_taken' | 'last_owner'
export type RemoveOutcome = 'removed' | 'not_found' | 'self' | 'owner' | 'last_owner'

/** Admin users: what the session guard, login, the CLI, start-up and the users verbs share. */
export interface UserStore {
  count(): Promise<number>
  /** The admin guard's lookup on every admin request (session epoch included). */
  findById(id: number): Promise<AdminUser | null>
  findRecord(id: number): Promise<UserRecord | null>
  /** The user with this email (normalised like login), for `svc user passwd --email`. */
  findByEmail(email: string): Promise<UserRecord | null>
  /** Users with id > afterId, in id order. */
  list(afterId: number, limit: number): Promise<UserRecord[]>
  /**
   * Writes the given columns; a new password hash also bumps the session epoch (every cookie dies). The
   * checks and the write are one atomic step: two requests cannot both take one email or both demote
   * "the other" owner.
   */
  update(id: number, changes: UserChanges, now?: number): Promise<UpdateOutcome>
  /** Deletes a user unless it is the actor, an owner the actor may not remove, or the last owner (atomic). */
  remove(id: number, by: { actorId: number | null; mayRemoveOwner: boolean }): Promise<RemoveOutcome>
  /** Returns the user only when the password matches; always spends one hash verification. */
  authenticate(email: string, password: string): Promise<AdminUser | null>
  /** Validates email and password, hashes, inserts; conflict (409) when the email is taken. */
  create(input: NewUserInput): Promise<UserRecord>
  /** Invalidates every session cookie of the user (logout, password change). */
  revokeSessions(id: number): Promise<void>
}

/** UserStore on the shared SQLite connection: synchronous statements inside, one transaction per check-and-write. */
export class SqliteUserStore implements UserStore {
  private readonly byId: RawStatement
  private readonly byEmail: RawStatement
  private readonly insert: RawStatement
  private readonly countAll: RawStatement
  private readonly bump: RawStatement
  private readonly page: RawStatement
  private readonly owners: RawStatement
  private readonly removeOne: RawStatement

  constructor(private readonly raw: RawDb) {
    this.byId = raw.prepare('SELECT * FROM users WHERE id = $id')
    this.byEmail = raw.prepare('SELECT * FROM users WHERE email = $email')
    this.insert = raw.prepare(
      'INSERT INTO users (email, password_hash, permissions, is_owner, session_epoch, created_at, updated_at) ' +
        'VALUES ($email, $hash, $permissions, $owner, 0, $now, $now)',
    )
    this.countAll = raw.prepare('SELECT count(*) AS n FROM users')
    this.bump = raw.prepare('UPDATE users SET session_epoch = session_epoch + 1, updated_at = $now WHERE id = $id')
    this.page = raw.prepare('SELECT * FROM users WHERE id > $after ORDER BY id LIMIT $limit')
    this.owners = raw.prepare('SELECT count(*) AS n FROM users WHERE is_owner = 1')
    this.removeOne = raw.prepare('DELETE FROM users WHERE id = $id')
  }

  async count(): Promise<number> {
    return (this.countAll.get() as { n: number }).n
  }

  async findById(id: number): Promise<AdminUser | null> {
    const row = this.byId.get({ id }) as UserRow | undefined
    return row ? toUser(row) : null
  }

  async findRecord(id: number): Promise<UserRecord | null> {
    const row = this.byId.get({ id }) as UserRow | undefined
    return row ? toRecord(row) : null
  }

  async findByEmail(email: string): Promise<UserRecord | null> {
    const row = this.byEmail.get({ email: lookupEmail(email) }) as UserRow | undefined
    return row ? toRecord(row) : null
  }

  async list(afterId: number, limit: number): Promise<UserRecord[]> {
    return (this.page.all({ after: afterId, limit }) as UserRow[]).map(toRecord)
  }

  async update(id: number, changes: UserChanges, now = Date.now()): Promise<UpdateOutcome> {
    return this.raw.transaction((): UpdateOutcome => {
      const current = this.byId.get({ id }) as UserRow | undefined
      if (!current) return 'not_found'
      if (changes.email !== undefined) {
        const holder = this.byEmail.get({ email: changes.email }) as UserRow | undefined
        if (holder && holder.id !== id) return 'email_taken'
      }
      if (current.is_owner === 1 && changes.isOwner === false && this.countOwners() <= 1) return 'last_owner'
      const sets: string[] = ['updated_at = $now']
      const params: Record<string, unknown> = { id, now }
      if (changes.email !== undefined) { sets.push('email = $email'); params.email = changes.email }
      if (changes.permissions !== undefined) { sets.push('permissions = $permissions'); params.permissions = JSON.stringify(changes.permissions) }
      if (changes.isOwner !== undefined) { sets.push('is_owner = $owner'); params.owner = changes.isOwner ? 1 : 0 }
      if (changes.passwordHash !== undefined) {
        sets.push('password_hash = $hash', 'session_epoch = session_epoch + 1')
        params.hash = changes.passwordHash
      }
      try {
        // Column names come from the fixed list above, never from input.
        this.raw.prepare(`UPDATE users SET ${sets.join(', ')} WHERE id = $id`).run(params)
      } catch (err) {
        if (isUniqueViolation(err)) return 'email_taken'
        throw err
      }
      return 'updated'
    })()
  }

  async remove(id: number, by: { actorId: number | null; mayRemoveOwner: boolean }): Promise<RemoveOutcome> {
    return this.raw.transaction((): RemoveOutcome => {
      const target = this.byId.get({ id }) as UserRow | undefined
      if (!target) return 'not_found'
      if (target.id === by.actorId) return 'self'
      if (target.is_owner === 1 && !by.mayRemoveOwner) return 'owner'
      if (target.is_owner === 1 && this.countOwners() <= 1) return 'last_owner'
      this.removeOne.run({ id })
      return 'removed'
    })()
  }

  async authenticate(email: string, password: string): Promise<AdminUser | null> {
    return verifyLogin(this.byEmail.get({ email: lookupEmail(email) }) as UserRow | undefined, password)
  }

  async create(input: NewUserInput): Promise<UserRecord> {
    const { email, password, permissions, owner } = newUserFields(input)
    if (this.byEmail.get({ email })) throw conflict(EMAIL_TAKEN)
    const hash = await Bun.password.hash(password)
    // Checked again: another request may have taken the email while we were hashing.
    if (this.byEmail.get({ email })) throw conflict(EMAIL_TAKEN)
    let res: { lastInsertRowid: number | bigint }
    try {
      res = this.insert.run({ email, hash, permissions, owner, now: Date.now() })
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(EMAIL_TAKEN)
      throw err
    }
    return toRecord(this.byId.get({ id: Number(res.lastInsertRowid) }) as UserRow)
  }

  async revokeSessions(id: number): Promise<void> {
    this.bump.run({ id, now: Date.now() })
  }

  private countOwners(): number {
    return (this.owners.get() as { n: number }).n
  }
}
