import { forbidden } from '../lib/errors'

/** The 8 admin sections of CONTRACT.md §2, each with read and write. */
export const SECTIONS = ['campaigns', 'landings', 'conversions', 'reports', 'email', 'commerce', 'settings', 'users'] as const
export type Section = (typeof SECTIONS)[number]
export type Action = 'read' | 'write'
export type Permissions = Partial<Record<Section, { read?: boolean; write?: boolean }>>
/** "campaigns:read" — the form routes declare. */
export type PermissionRef = `${Section}:${Action}`

/**
 * An agent token acting (issue 12): its scopes decide, per resource, on /mcp and on /admin/api alike.
 * `permissions` of such a user are the sections its scopes touch (for section-wide views only).
 */
export interface AgentIdentity {
  tokenId: number
  name: string
  scopes: ReadonlySet<string>
  /** Calls a minute per bucket. */
  rates: { default: number; ai: number }
  /** Epoch ms, or null: never. A token creating tokens cannot give them a later one. */
  expiresAt: number | null
  /** The scope a verb needs that this token lacks, or null when it may run it. */
  missingScopeFor(verb: { name: string; permission: string | null }): string | null
  /** The user who made the token (a token made by a token inherits its maker's); null: the CLI made it. */
  createdBy: number | null
  /** Whether the token holds `action` on every resource of `section` (what granting that section would hand on). */
  holdsSection(section: Section, action: Action): boolean
  /**
   * This call passed a Tier-2 confirmation (/mcp only). User, permission and token changes by a token need it
   * (README "Who may grant what"); REST cannot confirm, so there they are refused.
   */
  confirmed: boolean
}

export interface AdminUser {
  /** 0 for an agent token. */
  id: number
  email: string
  isOwner: boolean
  permissions: Permissions
  sessionEpoch: number
  agent?: AgentIdentity
}

export function allPermissions(): Required<Record<Section, { read: boolean; write: boolean }>> {
  return Object.fromEntries(SECTIONS.map((s) => [s, { read: true, write: true }])) as never
}

/** Owners have every permission; others exactly what user_permissions grants (write does not imply read). */
export function can(user: AdminUser, section: Section, action: Action): boolean {
  if (user.isOwner) return true
  return user.permissions[section]?.[action] === true
}

/**
 * For records that carry their own section (jobs): may the user `action` in some section at all? The
 * record's section is checked when it is read; this is the door before it.
 */
export function canSome(user: AdminUser, action: Action): boolean {
  return SECTIONS.some((section) => can(user, section, action))
}

/** The 403 text when canSome() says no. */
export const missingSomeSection = (action: Action): string =>
  `missing permission <section>:${action} (a job belongs to the section of its kind, e.g. conversions)`

/** Parses stored or submitted permissions; unknown sections and non-boolean flags are rejected. */
export function parsePermissions(value: unknown): Permissions | string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'permissions must be an object'
  const out: Permissions = {}
  for (const [section, flags] of Object.entries(value as Record<string, unknown>)) {
    if (!(SECTIONS as readonly string[]).includes(section)) return `permissions: unknown section "${section}"`
    if (flags === null || typeof flags !== 'object' || Array.isArray(flags)) return `permissions.${section} must be {"read":bool,"write":bool}`
    const f = flags as Record<string, unknown>
    for (const k of Object.keys(f)) {
      if (k !== 'read' && k !== 'write') return `permissions.${section}: unknown action "${k}"`
      if (typeof f[k] !== 'boolean') return `permissions.${section}.${k} must be true or false`
    }
    out[section as Section] = { read: f.read === true, write: f.write === true }
  }
  return out
}

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
