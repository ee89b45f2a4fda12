// What both user stores share: the row shape, its mapping to AdminUser/UserRecord, the checks a new user
// passes before any SQL, and the constant-time password check of login.
import { randomToken } from '../lib/crypto'
import { allPermissions, parsePermissions, type AdminUser, type Permissions } from '../lib/permissions'
import { checkPassword, normalizeEmail } from './rules'

export interface UserRow {
  id: number
  email: string
  password_hash: string
  permissions: string
  is_owner: number
  session_epoch: number
  created_at: number
  updated_at: number
}

/** A user as the users API shows it (never the password hash). */
export interface UserRecord extends AdminUser {
  createdAt: number
  updatedAt: number
}

export interface NewUserInput {
  email: unknown
  password: unknown
  permissions?: Permissions
  isOwner?: boolean
}

export function toRecord(row: UserRow): UserRecord {
  return { ...toUser(row), createdAt: row.created_at, updatedAt: row.updated_at }
}

export function toUser(row: UserRow): AdminUser {
  const parsed = parsePermissions(JSON.parse(row.permissions || '{}'))
  return {
    id: row.id,
    email: row.email,
    isOwner: row.is_owner === 1,
    permissions: typeof parsed === 'string' ? {} : parsed,
    sessionEpoch: row.session_epoch,
  }
}

/** Validated fields of a new user (throws invalid); the password is not hashed yet. */
export function newUserFields(input: NewUserInput) {
  const email = normalizeEmail(input.email)
  const password = checkPassword(input.password)
  const permissions = JSON.stringify(input.isOwner ? allPermissions() : (input.permissions ?? {}))
  return { email, password, permissions, owner: input.isOwner ? 1 : 0 }
}

/** The email as login and `svc user passwd --email` look it up. */
export const lookupEmail = (email: string) => email.trim().toLowerCase()

/** The user when the password matches; always spends one hash verification so timing says nothing. */
export async function verifyLogin(row: UserRow | null | undefined, password: string): Promise<AdminUser | null> {
  const hash = row?.password_hash ?? (await dummyHash())
  const ok = await Bun.password.verify(password, hash).catch(() => false)
  return row && ok ? toUser(row) : null
}

// A real hash of a random string, so unknown emails cost the same verification as wrong passwords.
let dummy: Promise<string> | null = null
const dummyHash = () => (dummy ??= Bun.password.hash(randomToken()))
