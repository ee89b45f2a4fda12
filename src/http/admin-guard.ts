import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { forbidden, unauthorized } from '../lib/errors'
import { can, SECTIONS, type PermissionRef, type Section, type Action } from '../auth/permissions'
import { SESSION_COOKIE } from '../auth/session'

function parseRef(ref: PermissionRef): [Section, Action] {
  const [section, action] = ref.split(':') as [Section, Action]
  if (!(SECTIONS as readonly string[]).includes(section) || (action !== 'read' && action !== 'write')) {
    throw new Error(`bad permission reference "${ref}"`)
  }
  return [section, action]
}

function cookieValue(header: string | null, name: string): string | null {
  if (!header) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim())
  }
  return null
}

/**
 * Admin auth as Elysia macros (spec §5): `{ admin: true }` needs a valid session cookie (401 otherwise);
 * `{ permission: 'campaigns:write' }` also needs that section permission (403 otherwise).
 * Both resolve `admin` (the signed-in AdminUser) into the handler context.
 */
export function adminGuard(ctx: AppContext) {
  const resolveAdmin = (headers: Headers) => {
    const claims = ctx.sessions.verify(cookieValue(headers.get('cookie'), SESSION_COOKIE))
    const user = claims ? ctx.users.findById(claims.userId) : null
    if (!claims || !user || user.sessionEpoch !== claims.epoch) throw unauthorized()
    return user
  }
  return new Elysia({ name: 'admin-guard' }).macro({
    admin: {
      resolve: ({ request }) => ({ admin: resolveAdmin(request.headers) }),
    },
    permission: (ref: PermissionRef) => {
      const [section, action] = parseRef(ref)
      return {
        resolve: ({ request }: { request: Request }) => {
          const admin = resolveAdmin(request.headers)
          if (!can(admin, section, action)) throw forbidden(`missing permission ${section}:${action}`)
          return { admin }
        },
      }
    },
  })
}
