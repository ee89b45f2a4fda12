// Offers under /admin/api/offers: the HTTP shape of the catalog.offers verbs.
import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { adminGuard } from '../../http/admin-guard'
import { idParams, okResponse, pageSchema, pageQuery, parseId } from '../../http/collection'
import { adminActor, invoke } from '../../lib/verb'
import { renderOffer, OfferCreate, OfferPatch, OfferRecord } from './model'
import type { offerVerbs } from './verbs'

const tags = ['offers']

export const offerRoutes = (ctx: AppContext, verbs: ReturnType<typeof offerVerbs>) =>
  new Elysia({ name: 'catalog-offers' })
    .use(adminGuard(ctx))
    .get('/admin/api/offers', async ({ query, admin }) => {
      const page = await invoke(verbs.list, adminActor(admin), query)
      return { items: page.items.map(renderOffer), next_cursor: page.next_cursor }
    }, { permission: 'campaigns:read', query: pageQuery, response: pageSchema(OfferRecord), detail: { tags, summary: 'List offers' } })
    .post('/admin/api/offers', async ({ body, set, admin }) => {
      const created = await invoke(verbs.create, adminActor(admin), body)
      set.status = 201
      return renderOffer(created)
    }, { permission: 'campaigns:write', body: OfferCreate, response: { 201: OfferRecord }, detail: { tags, summary: 'Create an offer' } })
    .get('/admin/api/offers/:id', async ({ params, admin }) =>
      renderOffer(await invoke(verbs.get, adminActor(admin), { id: parseId(params.id, 'offer') })),
      { permission: 'campaigns:read', params: idParams, response: OfferRecord, detail: { tags, summary: 'Get an offer' } })
    .patch('/admin/api/offers/:id', async ({ params, body, admin }) =>
      renderOffer(await invoke(verbs.update, adminActor(admin), { ...body, id: parseId(params.id, 'offer') })),
      { permission: 'campaigns:write', params: idParams, body: OfferPatch, response: OfferRecord, detail: { tags, summary: 'Change an offer' } })
    .delete('/admin/api/offers/:id', ({ params, admin }) => invoke(verbs.delete, adminActor(admin), { id: parseId(params.id, 'offer') }),
      { permission: 'campaigns:write', params: idParams, response: okResponse, detail: { tags, summary: 'Delete an offer (409 while a campaign uses it)' } })
