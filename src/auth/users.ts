import type { RawDb, RawStatement } from '../db/client'
import { badRequest, conflict } from '../lib/errors'
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
  if (typeof email !== 'string' || !EMAIL.test(email.trim())) throw badRequest('email: must be a valid email address')
  return email.trim().toLowerCase()
}

export function checkPassword(password: unknown): string {
  if (typeof password !== 'string' || password.length < 8) throw badRequest('password: must be at least 8 characters')
  if (password.length > 256) throw badRequest('password: must be at most 256 characters')
  return password
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

  constructor(private readonly raw: RawDb) {
    this.byId = raw.prepare('SELECT * FROM users WHERE id = $id')
    this.byEmail = raw.prepare('SELECT * FROM users WHERE email = $email')
    this.insert = raw.prepare(
      'INSERT INTO users (email, password_hash, permissions, is_owner, session_epoch, created_at, updated_at) ' +
        'VALUES ($email, $hash, $permissions, $owner, 0, $now, $now)',
    )
    this.countAll = raw.prepare('SELECT count(*) AS n FROM users')
    this.bump = raw.prepare('UPDATE users SET session_epoch = session_epoch + 1, updated_at = $now WHERE id = $id')
  }

  count(): number {
    return (this.countAll.get() as { n: number }).n
  }

  findById(id: number): AdminUser | null {
    const row = this.byId.get({ id }) as UserRow | undefined
    return row ? toUser(row) : null
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
