import { forbidden } from '../lib/errors'

// The model (sections, AdminUser, can, parsePermissions) lives in lib/permissions.ts; the rules of granting here.
import { SECTIONS, allPermissions, can, type Action, type AdminUser, type AgentIdentity, type PermissionRef, type Permissions, type Section } from '../lib/permissions'

/**
 * Who hands out rights (users, permissions, tokens): the person acting, or an agent token together with the
 * person who created it. A token grants only what both its scopes and that person hold.
 */
export interface Granter {
  /** The person acting or who made the acting token; 'system' for the CLI and start-up (and tokens the CLI made); null: that person is gone. */
  person: AdminUser | 'system' | null
  /** The acting token, if a token acts. */
  agent: AgentIdentity | null
}

/** The granter of an actor; `findUser` looks up a token's creator. */
export async function granterOf(
  actor: { kind: 'admin'; user: AdminUser } | { kind: 'system' },
  findUser: (id: number) => Promise<AdminUser | null>,
): Promise<Granter> {
  if (actor.kind === 'system') return { person: 'system', agent: null }
  const agent = actor.user.agent
  if (!agent) return { person: actor.user, agent: null }
  return { person: agent.createdBy === null ? 'system' : await findUser(agent.createdBy), agent }
}

/** Owner rights (create, change or delete owners): the system or an owner in person; never a token. */
export const grantsAsOwner = (g: Granter): boolean => g.agent === null && (g.person === 'system' || g.person?.isOwner === true)

/** "Yourself": the person acting, or the person a token acts for; null for the system. */
export const selfOf = (g: Granter): number | null => (g.person && g.person !== 'system' ? g.person.id : null)

/** May the granter hand on `section:action`? */
export function mayGrantSection(g: Granter, section: Section, action: Action): boolean {
  const person = g.person === 'system' || (g.person !== null && can(g.person, section, action))
  return person && (g.agent === null || g.agent.holdsSection(section, action))
}

/** The first section action in `permissions` the granter may not hand on ("settings:write"), or null. */
export function firstUngrantable(g: Granter, permissions: Permissions): PermissionRef | null {
  for (const section of SECTIONS) {
    for (const action of ['read', 'write'] as const) {
      if (permissions[section]?.[action] === true && !mayGrantSection(g, section, action)) return `${section}:${action}`
    }
  }
  return null
}

/** Every section action of an owner, as flags (what an owner's record stands for when compared). */
export const effectivePermissions = (user: { isOwner: boolean; permissions: Permissions }): Permissions =>
  user.isOwner ? allPermissions() : user.permissions

/** Whether two permission sets grant the same (absent sections and flags are false). */
export function samePermissions(a: Permissions, b: Permissions): boolean {
  return SECTIONS.every((s) => (a[s]?.read === true) === (b[s]?.read === true) && (a[s]?.write === true) === (b[s]?.write === true))
}

/**
 * User, permission and token changes by an agent token are Tier 2: only a call confirmed on /mcp makes them.
 * REST cannot confirm, so there a token is refused with a pointer to the tool (README "Who may grant what").
 */
export function requireConfirmed(actor: { kind: 'admin'; user: AdminUser } | { kind: 'system' }, tool: string): void {
  if (actor.kind === 'admin' && actor.user.agent && !actor.user.agent.confirmed) {
    throw forbidden(`Tier 2: an agent token makes this change only through /mcp (tool ${tool}), which asks for confirmation`)
  }
}
