// The admin API (CONTRACT.md §2): session, users, catalog (sources, offers, landings, campaigns),
// settings and the OpenAPI document. Other features mount their own /admin/api routes with adminGuard.
import { Elysia } from 'elysia'
import type { AppContext, Feature } from '../context'
import { sessionRoutes } from './session/routes'
import { sourceRoutes } from './sources/routes'
import { offerRoutes } from './offers/routes'
import { landingRoutes } from './landings/routes'
import { campaignRoutes } from './campaigns/routes'
import { openapiRoutes } from './openapi'


export function adminFeature(ctx: AppContext): Feature {
  const routes = new Elysia({ name: 'admin' })
    .use(sessionRoutes(ctx))
    .use(sourceRoutes(ctx))
    .use(offerRoutes(ctx))
    .use(landingRoutes(ctx))
    .use(campaignRoutes(ctx))
    .use(openapiRoutes(ctx))
  return { name: 'admin', routes }
}
