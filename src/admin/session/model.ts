import { t } from 'elysia'
import { Int } from '../../lib/fields'
import { allPermissions, SECTIONS, type AdminUser } from '../../lib/permissions'

const flags = t.Object({ read: t.Boolean(), write: t.Boolean() })
/** All 8 sections, always present. */
export const PermissionsView = t.Object(Object.fromEntries(SECTIONS.map((s) => [s, flags])) as Record<(typeof SECTIONS)[number], typeof flags>)
export type PermissionsView = typeof PermissionsView.static

/** Effective permissions: owners have everything, others exactly what is stored (missing = false). */
export function permissionsView(user: Pick<AdminUser, 'isOwner' | 'permissions'>): PermissionsView {
  if (user.isOwner) return allPermissions()
  return Object.fromEntries(
    SECTIONS.map((s) => [s, { read: user.permissions[s]?.read === true, write: user.permissions[s]?.write === true }]),
  ) as PermissionsView
}

export const Me = t.Object({ id: Int(), email: t.String(), is_owner: t.Boolean(), permissions: PermissionsView })

export const renderMe = (u: AdminUser): typeof Me.static => ({ id: u.id, email: u.email, is_owner: u.isOwner, permissions: permissionsView(u) })

export const LoginBody = t.Object({
  email: t.String({ maxLength: 320 }),
  password: t.String({ maxLength: 1024 }),
})

export const LoginResponse = t.Object({ ok: t.Literal(true), user: Me })
