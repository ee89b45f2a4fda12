// The admin API (CONTRACT.md §2): session, users, settings and the OpenAPI document. Features mount their
// own /admin/api routes with adminGuard (the catalog's live in src/catalog).
import { Elysia } from 'elysia'
import type { AppContext, Feature } from '../context'
import { sessionRoutes } from './session/routes'
import { openapiRoutes } from './openapi'

export function adminFeature(ctx: AppContext): Feature {
  const routes = new Elysia({ name: 'admin' })
    .use(sessionRoutes(ctx))
    .use(openapiRoutes(ctx))
  return { name: 'admin', routes }
}
