import { t } from 'elysia'
import type { UserRecord } from './store'
import { iso } from '../lib/time'
import { Int } from '../lib/fields'
import { PermissionsView, permissionsView } from '../admin'

const permissionsInput = t.Unknown({
  description: '{"<section>":{"read":bool,"write":bool},…}; sections: campaigns landings conversions reports email commerce settings users. Missing sections and flags are false.',
})

export const UserCreate = t.Object({
  email: t.String({ maxLength: 320 }),
  password: t.String({ maxLength: 1024, description: 'write-only, at least 8 characters' }),
  permissions: t.Optional(permissionsInput),
  is_owner: t.Optional(t.Boolean({ description: 'owners have every permission; only an owner may grant it' })),
})
export const UserPatch = t.Partial(UserCreate)
export type UserInput = Partial<typeof UserCreate.static>

export const UserView = t.Object({
  id: Int(),
  email: t.String(),
  permissions: PermissionsView,
  is_owner: t.Boolean(),
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
})

export const renderUser = (u: UserRecord): typeof UserView.static => ({
  id: u.id,
  email: u.email,
  permissions: permissionsView(u),
  is_owner: u.isOwner,
  created_at: iso(u.createdAt),
  updated_at: iso(u.updatedAt),
})
