// Users API rules. Owners are the instance's root: a non-owner holding users:write manages everyone
// else, but cannot create, change or delete an owner (else they could reset an owner's password).
import type { AppContext } from '../../context'
import type { AdminUser, Permissions } from '../../auth/permissions'
import { allPermissions, parsePermissions } from '../../auth/permissions'
import { checkPassword, normalizeEmail, type UserChanges, type UserRecord } from '../../auth/users'
import { invalid, conflict, forbidden, notFound } from '../../lib/errors'
import { type Page } from '../../lib/paging'
import { isUniqueViolation } from '../../db/errors'
import type { UserInput } from './model'

const EMAIL_TAKEN = 'a user with this email already exists'

function permissionsOf(value: unknown): Permissions {
  const parsed = parsePermissions(value)
  if (typeof parsed === 'string') throw invalid(parsed.startsWith('permissions') ? parsed : `permissions: ${parsed}`)
  return parsed
}

export function getUserOrThrow(ctx: AppContext, id: number): UserRecord {
  const user = ctx.users.findRecord(id)
  if (!user) throw notFound('user not found')
  return user
}

export const listUsers = (ctx: AppContext, page: Page): UserRecord[] => ctx.users.list(page.afterId, page.limit + 1)

export async function createUser(ctx: AppContext, actor: AdminUser, input: UserInput): Promise<UserRecord> {
  const isOwner = input.is_owner === true
  if (isOwner && !actor.isOwner) throw forbidden('only an owner can create an owner')
  const permissions = input.permissions === undefined ? {} : permissionsOf(input.permissions)
  try {
    const user = await ctx.users.create({ email: input.email, password: input.password, permissions, isOwner })
    return ctx.users.findRecord(user.id)!
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(EMAIL_TAKEN)
    throw err
  }
}

/**
 * Partial update. A new password revokes every session of that user; when users change their own
 * password the caller re-issues their cookie (see routes).
 */
export async function patchUser(ctx: AppContext, actor: AdminUser, id: number, input: UserInput): Promise<{ user: UserRecord; passwordChanged: boolean }> {
  const target = getUserOrThrow(ctx, id)
  if (target.isOwner && !actor.isOwner) throw forbidden('only an owner can change an owner')
  if (input.is_owner === true && !actor.isOwner) throw forbidden('only an owner can grant owner')

  const changes: UserChanges = {}
  if (input.email !== undefined) changes.email = normalizeEmail(input.email)
  if (input.permissions !== undefined) changes.permissions = permissionsOf(input.permissions)
  if (input.is_owner !== undefined) {
    changes.isOwner = input.is_owner
    // A promoted owner's stored permissions say "everything" too, so a later demotion keeps a sane default.
    if (input.is_owner && changes.permissions === undefined) changes.permissions = allPermissions()
  }
  if (input.password !== undefined) changes.passwordHash = await Bun.password.hash(checkPassword(input.password))

  // The checks and the write run together so two requests cannot both remove "the other" owner.
  ctx.database.raw.transaction(() => {
    const current = getUserOrThrow(ctx, id)
    if (changes.email !== undefined) {
      const holder = ctx.users.idByEmail(changes.email)
      if (holder !== null && holder !== id) throw conflict(EMAIL_TAKEN)
    }
    if (current.isOwner && changes.isOwner === false && ctx.users.countOwners() <= 1) {
      throw conflict('cannot demote the last owner')
    }
    try {
      ctx.users.update(id, changes)
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(EMAIL_TAKEN)
      throw err
    }
  })()
  return { user: getUserOrThrow(ctx, id), passwordChanged: changes.passwordHash !== undefined }
}

export function removeUser(ctx: AppContext, actor: AdminUser, id: number): void {
  ctx.database.raw.transaction(() => {
    const target = getUserOrThrow(ctx, id)
    if (target.id === actor.id) throw conflict('you cannot delete yourself')
    if (target.isOwner && !actor.isOwner) throw forbidden('only an owner can delete an owner')
    if (target.isOwner && ctx.users.countOwners() <= 1) throw conflict('cannot delete the last owner')
    ctx.users.remove(id)
  })()
}
