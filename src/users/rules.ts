// Field rules of admin users, shared by the store (which creates users for the CLI, start-up and tests)
// and the users verbs.
import { parsePermissions, type Permissions } from '../lib/permissions'
import { invalid } from '../lib/errors'

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{1,63}$/

export const EMAIL_TAKEN = 'a user with this email already exists'

export function normalizeEmail(email: unknown): string {
  if (typeof email !== 'string' || !EMAIL.test(email.trim())) throw invalid('email: must be a valid email address')
  return email.trim().toLowerCase()
}

export function checkPassword(password: unknown): string {
  if (typeof password !== 'string' || password.length < 8) throw invalid('password: must be at least 8 characters')
  if (password.length > 256) throw invalid('password: must be at most 256 characters')
  return password
}

export function permissionsOf(value: unknown): Permissions {
  const parsed = parsePermissions(value)
  if (typeof parsed === 'string') throw invalid(parsed.startsWith('permissions') ? parsed : `permissions: ${parsed}`)
  return parsed
}
