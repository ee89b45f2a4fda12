// Users verbs. Who may grant what (README "Who may grant what"), the same on REST, /mcp and the CLI:
// - a person grants only the section actions they hold; an agent token only what both its scopes (every
//   resource of the section) and the person who created it hold;
// - a person (or a token acting for them) manages only users who hold no more than they may grant: changing
//   another user's password or email would otherwise let them sign in as that user;
// - nobody changes their own permissions or owner flag, nor deletes themselves;
// - owners are the instance's root: only an owner in person creates an owner, makes someone one, or changes or
//   deletes one (a token never does, whoever created it);
// - a token's user changes are Tier 2: confirmed on /mcp, refused on REST.
// The system (CLI, start-up) may do anything.
import { Type } from '@sinclair/typebox'
import {
  effectivePermissions, firstUngrantable, grantsAsOwner, granterOf, samePermissions, selfOf, requireConfirmed, type Granter,
} from '../auth'
import { allPermissions, type PermissionRef } from '../lib/permissions'
import { conflict, forbidden, notFound } from '../lib/errors'
import { Int } from '../lib/fields'
import { parsePage, toPage } from '../lib/paging'
import { defineVerb, type Actor, type VerbSet } from '../lib/verb'
import { renderUser, UserCreate, UserPatch } from './model'
import { checkPassword, EMAIL_TAKEN, normalizeEmail, permissionsOf } from './rules'
import type { UserChanges, UserRecord, UserStore } from './store'

/** The 403 text for a section action the granter does not hold. */
const cannotGrant = (g: Granter, ref: PermissionRef) => g.agent
  ? `this token cannot grant ${ref}: a token grants only what both its scopes and the user who created it hold`
  : `you cannot grant ${ref}: you do not hold it`

/** A non-owner manages only users within what they may grant (403 naming the first permission they lack). */
function requireWithin(g: Granter, target: UserRecord, doing: 'change' | 'delete'): void {
  if (grantsAsOwner(g)) return
  if (target.isOwner) throw forbidden(`only an owner can ${doing} an owner`)
  const beyond = firstUngrantable(g, target.permissions)
  if (!beyond) return
  throw forbidden(g.agent
    ? `this token cannot ${doing} a user who holds ${beyond}: a token manages only users within what both its scopes and the user who created it hold`
    : `you cannot ${doing} a user who holds ${beyond}: you do not hold it`)
}

export function usersVerbs(users: UserStore) {
  const found = async (id: number) => {
    const user = await users.findRecord(id)
    if (!user) throw notFound('user not found')
    return user
  }
  const granter = (actor: Actor) => granterOf(actor, (id) => users.findById(id))

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
        requireConfirmed(actor, 'create_user')
        const g = await granter(actor)
        const owner = input.is_owner === true
        if (owner && !grantsAsOwner(g)) throw forbidden('only an owner can create an owner')
        const permissions = input.permissions === undefined ? {} : permissionsOf(input.permissions)
        const beyond = owner ? null : firstUngrantable(g, permissions)
        if (beyond) throw forbidden(cannotGrant(g, beyond))
        return renderUser(await users.create({ email: input.email, password: input.password, permissions, isOwner: owner }))
      },
    }),
    update: defineVerb({
      name: 'users.update',
      summary: "Change an admin user (a new password revokes that user's sessions)",
      permission: 'users:write',
      input: Type.Object({ id: Int(), ...UserPatch.properties }),
      async run(actor, { id, ...input }) {
        requireConfirmed(actor, 'update_user')
        const target = await found(id)
        const g = await granter(actor)
        requireWithin(g, target, 'change')
        if (input.is_owner === true && !grantsAsOwner(g)) throw forbidden('only an owner can grant owner')

        const changes: UserChanges = {}
        if (input.email !== undefined) changes.email = normalizeEmail(input.email)
        if (input.permissions !== undefined) changes.permissions = permissionsOf(input.permissions)
        if (selfOf(g) === id) {
          // Sending what one already holds (a form saved with its grid untouched) changes nothing and passes.
          if (input.is_owner !== undefined && input.is_owner !== target.isOwner) throw forbidden('you cannot change your own owner flag')
          if (changes.permissions && !samePermissions(changes.permissions, effectivePermissions(target))) throw forbidden('you cannot change your own permissions')
          if (target.isOwner) delete changes.permissions
        }
        const beyond = changes.permissions && !(input.is_owner ?? target.isOwner) ? firstUngrantable(g, changes.permissions) : null
        if (beyond) throw forbidden(cannotGrant(g, beyond))
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
        requireConfirmed(actor, 'delete_user')
        const g = await granter(actor)
        const target = await found(id)
        if (!target.isOwner) requireWithin(g, target, 'delete')
        const outcome = await users.remove(id, { actorId: selfOf(g), mayRemoveOwner: grantsAsOwner(g) })
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
