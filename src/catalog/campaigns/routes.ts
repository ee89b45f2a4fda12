// Campaigns under /admin/api/campaigns: the HTTP shape of the catalog.campaigns verbs.
import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { adminGuard } from '../../http/admin-guard'
import { idParams, okResponse, pageSchema, pageQuery, parseId } from '../../http/collection'
import { adminActor, invoke } from '../../lib/verb'
import { renderCampaign, CampaignCreate, CampaignPatch, CampaignRecord } from './model'
import type { campaignVerbs } from './verbs'

const tags = ['campaigns']

export const campaignRoutes = (ctx: AppContext, verbs: ReturnType<typeof campaignVerbs>) =>
  new Elysia({ name: 'catalog-campaigns' })
    .use(adminGuard(ctx))
    .get('/admin/api/campaigns', async ({ query, admin }) => {
      const page = await invoke(verbs.list, adminActor(admin), query)
      return { items: page.items.map(renderCampaign), next_cursor: page.next_cursor }
    }, { permission: 'campaigns:read', query: pageQuery, response: pageSchema(CampaignRecord), detail: { tags, summary: 'List campaigns with their offer and landing rotations' } })
    .post('/admin/api/campaigns', async ({ body, set, admin }) => {
      const created = await invoke(verbs.create, adminActor(admin), body)
      set.status = 201
      return renderCampaign(created)
    }, { permission: 'campaigns:write', body: CampaignCreate, response: { 201: CampaignRecord }, detail: { tags, summary: 'Create a campaign' } })
    .get('/admin/api/campaigns/:id', async ({ params, admin }) =>
      renderCampaign(await invoke(verbs.get, adminActor(admin), { id: parseId(params.id, 'campaign') })),
      { permission: 'campaigns:read', params: idParams, response: CampaignRecord, detail: { tags, summary: 'Get a campaign' } })
    .patch('/admin/api/campaigns/:id', async ({ params, body, admin }) =>
      renderCampaign(await invoke(verbs.update, adminActor(admin), { ...body, id: parseId(params.id, 'campaign') })),
      { permission: 'campaigns:write', params: idParams, body: CampaignPatch, response: CampaignRecord, detail: { tags, summary: 'Change a campaign (a given rotation replaces the old one)' } })
    .delete('/admin/api/campaigns/:id', ({ params, admin }) => invoke(verbs.delete, adminActor(admin), { id: parseId(params.id, 'campaign') }),
      { permission: 'campaigns:write', params: idParams, response: okResponse, detail: { tags, summary: 'Delete a campaign (409 once it has clicks: deactivate it instead)' } })
