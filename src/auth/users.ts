import type { RawDb, RawStatement } from '../db/client'
import { invalid, conflict } from '../lib/errors'
import { randomToken } from '../lib/crypto'
import { allPermissions, parsePermissions, type AdminUser, type Permissions } from './permissions'

interface UserRow {
  id: number
  email: string
  password_hash: string
  permissions: string
  is_owner: number
  session_epoch: number
  created_at: number
  updated_at: number
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{1,63}$/

export function normalizeEmail(email: unknown): string {
  if (typeof email !== 'string' || !EMAIL.test(email.trim())) throw invalid('email: must be a valid email address')
  return email.trim().toLowerCase()
}

export function checkPassword(password: unknown): string {
  if (typeof password !== 'string' || password.length < 8) throw invalid('password: must be at least 8 characters')
  if (password.length > 256) throw invalid('password: must be at most 256 characters')
  return password
}

/** A user as the users API shows it (never the password hash). */
export interface UserRecord extends AdminUser {
  createdAt: number
  updatedAt: number
}

export interface UserChanges {
  email?: string
  passwordHash?: string
  permissions?: Permissions
  isOwner?: boolean
}

function toRecord(row: UserRow): UserRecord {
  return { ...toUser(row), createdAt: row.created_at, updatedAt: row.updated_at }
}

function toUser(row: UserRow): AdminUser {
  const parsed = parsePermissions(JSON.parse(row.permissions || '{}'))
  return {
    id: row.id,
    email: row.email,
    isOwner: row.is_owner === 1,
    permissions: typeof parsed === 'string' ? {} : parsed,
    sessionEpoch: row.session_epoch,
  }
}

/** Admin users: the queries the session guard, the CLI and the users API share. */
export class AdminUsers {
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

  count(): number {
    return (this.countAll.get() as { n: number }).n
  }

  findById(id: number): AdminUser | null {
    const row = this.byId.get({ id }) as UserRow | undefined
    return row ? toUser(row) : null
  }

  findRecord(id: number): UserRecord | null {
    const row = this.byId.get({ id }) as UserRow | undefined
    return row ? toRecord(row) : null
  }

  /** Id of the user with this (normalised) email, if any. */
  idByEmail(email: string): number | null {
    const row = this.byEmail.get({ email }) as UserRow | undefined
    return row ? row.id : null
  }

  /** Users with id > afterId, in id order. */
  list(afterId: number, limit: number): UserRecord[] {
    return (this.page.all({ after: afterId, limit }) as UserRow[]).map(toRecord)
  }

  countOwners(): number {
    return (this.owners.get() as { n: number }).n
  }

  /** Writes the given columns; a new password hash also bumps the session epoch (every cookie dies). */
  update(id: number, changes: UserChanges, now = Date.now()): void {
    const sets: string[] = ['updated_at = $now']
    const params: Record<string, unknown> = { id, now }
    if (changes.email !== undefined) { sets.push('email = $email'); params.email = changes.email }
    if (changes.permissions !== undefined) { sets.push('permissions = $permissions'); params.permissions = JSON.stringify(changes.permissions) }
    if (changes.isOwner !== undefined) { sets.push('is_owner = $owner'); params.owner = changes.isOwner ? 1 : 0 }
    if (changes.passwordHash !== undefined) {
      sets.push('password_hash = $hash', 'session_epoch = session_epoch + 1')
      params.hash = changes.passwordHash
    }
    // Column names come from the fixed list above, never from input.
    this.raw.prepare(`UPDATE users SET ${sets.join(', ')} WHERE id = $id`).run(params)
  }

  remove(id: number): boolean {
    return this.removeOne.run({ id }).changes > 0
  }

  /** Returns the user only when the password matches; always spends one hash verification so timing says nothing. */
  async authenticate(email: string, password: string): Promise<AdminUser | null> {
    const row = this.byEmail.get({ email: email.trim().toLowerCase() }) as UserRow | undefined
    const hash = row?.password_hash ?? (await dummyHash())
    const ok = await Bun.password.verify(password, hash).catch(() => false)
    return row && ok ? toUser(row) : null
  }

  async create(input: { email: unknown; password: unknown; permissions?: Permissions; isOwner?: boolean }): Promise<AdminUser> {
    const email = normalizeEmail(input.email)
    const password = checkPassword(input.password)
    if (this.byEmail.get({ email })) throw conflict('a user with this email already exists')
    const hash = await Bun.password.hash(password)
    // Checked again: another request may have taken the email while we were hashing.
    if (this.byEmail.get({ email })) throw conflict('a user with this email already exists')
    const permissions = input.isOwner ? allPermissions() : (input.permissions ?? {})
    const res = this.insert.run({ email, hash, permissions: JSON.stringify(permissions), owner: input.isOwner ? 1 : 0, now: Date.now() })
    return this.findById(Number(res.lastInsertRowid))!
  }

  /** Invalidates every session cookie of the user (logout, password change). */
  revokeSessions(id: number): void {
    this.bump.run({ id, now: Date.now() })
  }
}

// A real hash of a random string, so unknown emails cost the same verification as wrong passwords.
let dummy: Promise<string> | null = null
const dummyHash = () => (dummy ??= Bun.password.hash(randomToken()))
