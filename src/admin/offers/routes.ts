import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { adminGuard } from '../../http/admin-guard'
import { idParams, okResponse, pageSchema, pageQuery, parseId } from '../../http/collection'
import { parsePage, toPage } from '../../lib/paging'
import { renderOffer, OfferCreate, OfferPatch, OfferRecord } from './model'
import { listOffers } from './queries'
import { createOffer, getOfferOrThrow, patchOffer, removeOffer } from './service'

const tags = ['offers']

export const offerRoutes = (ctx: AppContext) =>
  new Elysia({ name: 'admin-offers' })
    .use(adminGuard(ctx))
    .get('/admin/api/offers', ({ query }) => {
      const page = parsePage(query)
      return toPage(listOffers(ctx.database.db, page), page, renderOffer)
    }, { permission: 'campaigns:read', query: pageQuery, response: pageSchema(OfferRecord), detail: { tags, summary: 'List offers' } })
    .post('/admin/api/offers', ({ body, set }) => {
      set.status = 201
      return renderOffer(createOffer(ctx, body))
    }, { permission: 'campaigns:write', body: OfferCreate, response: { 201: OfferRecord }, detail: { tags, summary: 'Create an offer' } })
    .get('/admin/api/offers/:id', ({ params }) => renderOffer(getOfferOrThrow(ctx, parseId(params.id, 'offer'))),
      { permission: 'campaigns:read', params: idParams, response: OfferRecord, detail: { tags, summary: 'Get an offer' } })
    .patch('/admin/api/offers/:id', ({ params, body }) => renderOffer(patchOffer(ctx, parseId(params.id, 'offer'), body)),
      { permission: 'campaigns:write', params: idParams, body: OfferPatch, response: OfferRecord, detail: { tags, summary: 'Change an offer' } })
    .delete('/admin/api/offers/:id', ({ params }) => {
      removeOffer(ctx, parseId(params.id, 'offer'))
      return { ok: true as const }
    }, { permission: 'campaigns:write', params: idParams, response: okResponse, detail: { tags, summary: 'Delete an offer (409 while a campaign uses it)' } })
