import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { adminGuard } from '../../http/admin-guard'
import { idParams, okResponse, pageSchema, pageQuery, parseId } from '../../http/collection'
import { parsePage, toPage } from '../../lib/paging'
import { issueSessionCookie } from '../session/cookie'
import { renderUser, UserCreate, UserPatch, UserView } from './model'
import { createUser, getUserOrThrow, listUsers, patchUser, removeUser } from './service'

const tags = ['users']

export const userRoutes = (ctx: AppContext) =>
  new Elysia({ name: 'admin-users' })
    .use(adminGuard(ctx))
    .get('/admin/api/users', ({ query }) => {
      const page = parsePage(query)
      return toPage(listUsers(ctx, page), page, renderUser)
    }, { permission: 'users:read', query: pageQuery, response: pageSchema(UserView), detail: { tags, summary: 'List admin users' } })
    .post('/admin/api/users', async ({ admin, body, set }) => {
      set.status = 201
      return renderUser(await createUser(ctx, admin, body))
    }, { permission: 'users:write', body: UserCreate, response: { 201: UserView }, detail: { tags, summary: 'Create an admin user' } })
    .get('/admin/api/users/:id', ({ params }) => renderUser(getUserOrThrow(ctx, parseId(params.id, 'user'))),
      { permission: 'users:read', params: idParams, response: UserView, detail: { tags, summary: 'Get an admin user' } })
    .patch('/admin/api/users/:id', async ({ admin, params, body, cookie, request }) => {
      const { user, passwordChanged } = await patchUser(ctx, admin, parseId(params.id, 'user'), body)
      if (passwordChanged && user.id === admin.id) {
        // The change revoked every session, this one included; hand the caller a fresh cookie.
        issueSessionCookie(ctx, cookie, request, user)
      }
      return renderUser(user)
    }, {
      permission: 'users:write', params: idParams, body: UserPatch, response: UserView,
      detail: { tags, summary: "Change an admin user (a new password revokes that user's sessions)" },
    })
    .delete('/admin/api/users/:id', ({ admin, params }) => {
      removeUser(ctx, admin, parseId(params.id, 'user'))
      return { ok: true as const }
    }, { permission: 'users:write', params: idParams, response: okResponse, detail: { tags, summary: 'Delete an admin user' } })
