// The admin API (CONTRACT.md §2): session, users, settings and the OpenAPI document. Features mount their
// own /admin/api routes with adminGuard (the catalog's live in src/catalog).
import { Elysia } from 'elysia'
import type { AppContext, Feature } from '../context'
import { sessionRoutes } from './session/routes'
import { openapiRoutes } from './openapi'

// The session cookie and the permissions view, which the users feature shares (a user changing their own
// password gets a fresh cookie; a user's record shows their permissions as /me does).
export { issueSessionCookie } from './session/cookie'
export { PermissionsView, permissionsView } from './session/model'

export function adminFeature(ctx: AppContext): Feature {
  const routes = new Elysia({ name: 'admin' })
    .use(sessionRoutes(ctx))
    .use(openapiRoutes(ctx))
  return { name: 'admin', routes }
}
