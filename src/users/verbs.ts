// Users verbs. Owners are the instance's root: a non-owner holding users:write manages everyone else,
// but cannot create, change or delete an owner (else they could reset an owner's password).
// The system (CLI, start-up) acts as an owner.
import { Type } from '@sinclair/typebox'
import { allPermissions } from '../auth/permissions'
import { conflict, forbidden, notFound } from '../lib/errors'
import { Int } from '../lib/fields'
import { parsePage, toPage } from '../lib/paging'
import { defineVerb, type Actor, type VerbSet } from '../lib/verb'
import { renderUser, UserCreate, UserPatch } from './model'
import { checkPassword, EMAIL_TAKEN, normalizeEmail, permissionsOf } from './rules'
import type { UserChanges, UserStore } from './store'

const isOwner = (actor: Actor) => actor.kind === 'system' || actor.user.isOwner
const actorId = (actor: Actor) => (actor.kind === 'admin' ? actor.user.id : null)

export function usersVerbs(users: UserStore) {
  const found = async (id: number) => {
    const user = await users.findRecord(id)
    if (!user) throw notFound('user not found')
    return user
  }

  return {
    list: defineVerb({
      name: 'users.list',
      summary: 'List admin users',
      permission: 'users:read',
      input: Type.Object({ limit: Type.Optional(Type.String()), cursor: Type.Optional(Type.String()) }),
      async run(_actor, input) {
        const page = parsePage(input)
        return toPage(await users.list(page.afterId, page.limit + 1), page, renderUser)
      },
    }),
    get: defineVerb({
      name: 'users.get',
      summary: 'Get an admin user',
      permission: 'users:read',
      input: Type.Object({ id: Int() }),
      run: async (_actor, { id }) => renderUser(await found(id)),
    }),
    create: defineVerb({
      name: 'users.create',
      summary: 'Create an admin user',
      permission: 'users:write',
      input: UserCreate,
      async run(actor, input) {
        const owner = input.is_owner === true
        if (owner && !isOwner(actor)) throw forbidden('only an owner can create an owner')
        const permissions = input.permissions === undefined ? {} : permissionsOf(input.permissions)
        return renderUser(await users.create({ email: input.email, password: input.password, permissions, isOwner: owner }))
      },
    }),
    update: defineVerb({
      name: 'users.update',
      summary: "Change an admin user (a new password revokes that user's sessions)",
      permission: 'users:write',
      input: Type.Object({ id: Int(), ...UserPatch.properties }),
      async run(actor, { id, ...input }) {
        const target = await found(id)
        if (target.isOwner && !isOwner(actor)) throw forbidden('only an owner can change an owner')
        if (input.is_owner === true && !isOwner(actor)) throw forbidden('only an owner can grant owner')

        const changes: UserChanges = {}
        if (input.email !== undefined) changes.email = normalizeEmail(input.email)
        if (input.permissions !== undefined) changes.permissions = permissionsOf(input.permissions)
        if (input.is_owner !== undefined) {
          changes.isOwner = input.is_owner
          // A promoted owner's stored permissions say "everything" too, so a later demotion keeps a sane default.
          if (input.is_owner && changes.permissions === undefined) changes.permissions = allPermissions()
        }
        if (input.password !== undefined) changes.passwordHash = await Bun.password.hash(checkPassword(input.password))

        const outcome = await users.update(id, changes)
        if (outcome === 'not_found') throw notFound('user not found')
        if (outcome === 'email_taken') throw conflict(EMAIL_TAKEN)
        if (outcome === 'last_owner') throw conflict('cannot demote the last owner')
        return renderUser(await found(id))
      },
    }),
    delete: defineVerb({
      name: 'users.delete',
      summary: 'Delete an admin user',
      permission: 'users:write',
      input: Type.Object({ id: Int() }),
      async run(actor, { id }) {
        const outcome = await users.remove(id, { actorId: actorId(actor), mayRemoveOwner: isOwner(actor) })
        if (outcome === 'not_found') throw notFound('user not found')
        if (outcome === 'self') throw conflict('you cannot delete yourself')
        if (outcome === 'owner') throw forbidden('only an owner can delete an owner')
        if (outcome === 'last_owner') throw conflict('cannot delete the last owner')
        return { ok: true as const }
      },
    }),
  } satisfies VerbSet
}

export type UsersVerbs = ReturnType<typeof usersVerbs>
