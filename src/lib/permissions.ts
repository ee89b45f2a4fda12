// The permission model every layer speaks: the 8 admin sections of CONTRACT.md §2, an admin user (a person,
// or an agent token acting as one) and what it may do. No feature: verbs (lib/verb.ts) check it; who may
// grant what is the auth feature's (auth/permissions.ts).

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
