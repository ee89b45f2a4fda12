// The rules of changing and removing an admin user, once for both engines: step generators (lib/steps.ts)
// that the store runs inside one transaction, so each check holds until its write commits.
import type { Permissions } from '../lib/permissions'
import type { Steps } from '../lib/steps'
import type { UserRow } from './row'
import type { UserQueries } from './store'

export interface UserChanges {
  email?: string
  passwordHash?: string
  permissions?: Permissions
  isOwner?: boolean
}

export type UpdateOutcome = 'updated' | 'not_found' | 'email_taken' | 'last_owner'
export type RemoveOutcome = 'removed' | 'not_found' | 'self' | 'owner' | 'last_owner'

/** The email must be free, and the last owner stays an owner. */
export function* updateSteps(q: UserQueries, id: number, changes: UserChanges, now: number): Steps<UpdateOutcome> {
  yield q.lock()
  const current: UserRow | undefined = yield q.byId(id)
  if (!current) return 'not_found'
  if (changes.email !== undefined) {
    const holder: { id: number } | undefined = yield q.idByEmail(changes.email)
    if (holder && holder.id !== id) return 'email_taken'
  }
  if (current.is_owner === 1 && changes.isOwner === false && (yield* ownerCount(q)) <= 1) return 'last_owner'
  yield q.write(id, changes, now)
  return 'updated'
}

/** Nobody removes themselves; only an owner removes an owner; the last owner stays. */
export function* removeSteps(q: UserQueries, id: number, by: { actorId: number | null; mayRemoveOwner: boolean }): Steps<RemoveOutcome> {
  yield q.lock()
  const target: UserRow | undefined = yield q.byId(id)
  if (!target) return 'not_found'
  if (target.id === by.actorId) return 'self'
  if (target.is_owner === 1 && !by.mayRemoveOwner) return 'owner'
  if (target.is_owner === 1 && (yield* ownerCount(q)) <= 1) return 'last_owner'
  yield q.delete(id)
  return 'removed'
}

function* ownerCount(q: UserQueries): Steps<number> {
  const row: { n: number } | undefined = yield q.owners()
  return Number(row?.n ?? 0)
}
