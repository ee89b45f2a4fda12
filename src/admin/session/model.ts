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

/** `time_zone`: the instance's time_zone setting (for every signed-in user: screens show days in it). */
export const Me = t.Object({ id: Int(), email: t.String(), is_owner: t.Boolean(), permissions: PermissionsView, time_zone: t.String() })

export const renderMe = (u: AdminUser, timeZone: string): typeof Me.static =>
  ({ id: u.id, email: u.email, is_owner: u.isOwner, permissions: permissionsView(u), time_zone: timeZone })

export const LoginBody = t.Object({
  email: t.String({ maxLength: 320 }),
  password: t.String({ maxLength: 1024 }),
})

export const LoginResponse = t.Object({ ok: t.Literal(true), user: Me })
