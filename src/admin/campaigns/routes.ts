import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { adminGuard } from '../../http/admin-guard'
import { idParams, okResponse, pageSchema, pageQuery, parseId } from '../../http/collection'
import { parsePage, toPage } from '../../lib/paging'
import { CampaignCreate, CampaignPatch, CampaignRecord, renderCampaign } from './model'
import { createCampaign, getCampaignOrThrow, listCampaignsWithLinks, patchCampaign, removeCampaign, type Campaign } from './service'

const tags = ['campaigns']
const render = (c: Campaign) => renderCampaign(c.row, c.links)

export const campaignRoutes = (ctx: AppContext) =>
  new Elysia({ name: 'admin-campaigns' })
    .use(adminGuard(ctx))
    .get('/admin/api/campaigns', ({ query }) => {
      const page = parsePage(query)
      return toPage(listCampaignsWithLinks(ctx, page).map((c) => ({ ...c, id: c.row.id })), page, render)
    }, { permission: 'campaigns:read', query: pageQuery, response: pageSchema(CampaignRecord), detail: { tags, summary: 'List campaigns with their offer and landing rotations' } })
    .post('/admin/api/campaigns', ({ body, set }) => {
      set.status = 201
      return render(createCampaign(ctx, body))
    }, { permission: 'campaigns:write', body: CampaignCreate, response: { 201: CampaignRecord }, detail: { tags, summary: 'Create a campaign' } })
    .get('/admin/api/campaigns/:id', ({ params }) => render(getCampaignOrThrow(ctx, parseId(params.id, 'campaign'))),
      { permission: 'campaigns:read', params: idParams, response: CampaignRecord, detail: { tags, summary: 'Get a campaign' } })
    .patch('/admin/api/campaigns/:id', ({ params, body }) => render(patchCampaign(ctx, parseId(params.id, 'campaign'), body)),
      { permission: 'campaigns:write', params: idParams, body: CampaignPatch, response: CampaignRecord, detail: { tags, summary: 'Change a campaign (a given rotation replaces the old one)' } })
    .delete('/admin/api/campaigns/:id', ({ params }) => {
      removeCampaign(ctx, parseId(params.id, 'campaign'))
      return { ok: true as const }
    }, { permission: 'campaigns:write', params: idParams, response: okResponse, detail: { tags, summary: 'Delete a campaign (409 once it has clicks: deactivate it instead)' } })
