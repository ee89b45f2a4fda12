// /admin/api/users: thin routes over the users verbs.
import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { idParams, okResponse, pageSchema, pageQuery, parseId } from '../http/collection'
import { adminActor, invoke } from '../lib/verb'
import { issueSessionCookie } from '../admin'
import { UserCreate, UserPatch, UserView } from './model'
import type { UsersVerbs } from './verbs'

const tags = ['users']
const userId = (raw: string) => parseId(raw, 'user')

export const userRoutes = (ctx: AppContext, verbs: UsersVerbs) =>
  new Elysia({ name: 'admin-users' })
    .use(adminGuard(ctx))
    .get('/admin/api/users', ({ admin, query }) => invoke(verbs.list, adminActor(admin), query),
      { permission: 'users:read', query: pageQuery, response: pageSchema(UserView), detail: { tags, summary: verbs.list.summary } })
    .post('/admin/api/users', async ({ admin, body, set }) => {
      const user = await invoke(verbs.create, adminActor(admin), body)
      set.status = 201
      return user
    }, { permission: 'users:write', body: UserCreate, response: { 201: UserView }, detail: { tags, summary: verbs.create.summary } })
    .get('/admin/api/users/:id', ({ admin, params }) => invoke(verbs.get, adminActor(admin), { id: userId(params.id) }),
      { permission: 'users:read', params: idParams, response: UserView, detail: { tags, summary: verbs.get.summary } })
    .patch('/admin/api/users/:id', async ({ admin, params, body, cookie, request }) => {
      const user = await invoke(verbs.update, adminActor(admin), { ...body, id: userId(params.id) })
      if (body.password !== undefined && user.id === admin.id) {
        // The change revoked every session, this one included; hand the caller a fresh cookie.
        issueSessionCookie(ctx, cookie, request, (await ctx.users.findById(user.id))!)
      }
      return user
    }, {
      permission: 'users:write', params: idParams, body: UserPatch, response: UserView,
      detail: { tags, summary: verbs.update.summary },
    })
    .delete('/admin/api/users/:id', ({ admin, params }) => invoke(verbs.delete, adminActor(admin), { id: userId(params.id) }),
      { permission: 'users:write', params: idParams, response: okResponse, detail: { tags, summary: verbs.delete.summary } })
