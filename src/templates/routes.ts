// HTTP of the templates: /admin/api/source-templates and /admin/api/network-templates (list, get, export,
// import, delete) and creating a source or an offer from one. Thin: parse, invoke a verb, answer.
import { Elysia, t } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { lenientBody } from '../http/api-docs'
import { requestOrigin } from '../http/origin'
import { adminActor, invoke, type Verb } from '../lib/verb'
import type { TSchema } from '@sinclair/typebox'
import { MAX_IMPORT, type TemplateVerbs } from './verbs'

const idParams = t.Object({ id: t.String({ description: 'template id (slug)' }) })
const importBody = lenientBody(`{version, templates}: what the export gives; at most ${MAX_IMPORT} templates, ids custom-…`, {
  type: 'object',
  properties: { version: { type: 'integer' }, templates: { type: 'array', items: { type: 'object' }, maxItems: MAX_IMPORT } },
  required: ['templates'],
})

type RegistryVerbs = Pick<TemplateVerbs['sources'], 'list' | 'get' | 'export' | 'import' | 'delete'>
type V = Verb<TSchema, unknown>

export function templateRoutes(ctx: AppContext, verbs: TemplateVerbs) {
  // A network's postback URL is built on SVC_PUBLIC_URL, else on the address this request came to.
  const baseOf = (request: Request) => ctx.config.publicUrl ?? requestOrigin(ctx.config, request) ?? undefined
  const obj = (body: unknown) => (body !== null && typeof body === 'object' && !Array.isArray(body) ? body as Record<string, unknown> : {})

  function registry(app: Elysia<any, any, any, any, any, any, any>, path: string, tag: string, v: RegistryVerbs) {
    const detail = (verb: V) => ({ tags: [tag], summary: verb.summary })
    return app
      .get(path, ({ admin, request }) => invoke(v.list as V, adminActor(admin), { base_url: baseOf(request) }),
        { permission: 'campaigns:read', detail: detail(v.list as V) })
      .get(`${path}/export`, ({ admin }) => invoke(v.export as V, adminActor(admin), {}),
        { permission: 'campaigns:read', detail: detail(v.export as V) })
      .post(`${path}/import`, ({ admin, body }) => invoke(v.import as V, adminActor(admin), body as never),
        { permission: 'campaigns:write', body: importBody, detail: detail(v.import as V) })
      .get(`${path}/:id`, ({ admin, params, request }) => invoke(v.get as V, adminActor(admin), { id: params.id, base_url: baseOf(request) }),
        { permission: 'campaigns:read', params: idParams, detail: detail(v.get as V) })
      .delete(`${path}/:id`, ({ admin, params }) => invoke(v.delete as V, adminActor(admin), { id: params.id }),
        { permission: 'campaigns:write', params: idParams, detail: detail(v.delete as V) })
  }

  let app = new Elysia({ name: 'templates' }).use(adminGuard(ctx))
  app = registry(app, '/admin/api/source-templates', 'source templates', verbs.sources)
  app = registry(app, '/admin/api/network-templates', 'network templates', verbs.networks)
  return app
    .post('/admin/api/source-templates/:id/create-source', async ({ admin, params, body, set }) => {
      const created = await invoke(verbs.sources.createSource as V, adminActor(admin), { ...obj(body), id: params.id })
      set.status = 201
      return created
    }, {
      permission: 'campaigns:write', params: idParams,
      body: lenientBody('the new source', { type: 'object', properties: { name: { type: 'string', maxLength: 200 } }, required: ['name'] }),
      detail: { tags: ['source templates'], summary: verbs.sources.createSource.summary },
    })
    .get('/admin/api/sources/:id/zone-format', ({ admin, params }) => invoke(verbs.sources.zoneFormat as V, adminActor(admin), { source_id: Number(params.id) }), {
      permission: 'campaigns:read',
      params: t.Object({ id: t.String({ pattern: '^[0-9]{1,9}$', description: 'source id' }) }),
      detail: {
        tags: ['source templates'], summary: verbs.sources.zoneFormat.summary,
        description: '`{separator, template_id, note}`. A source does not store its template: it is read back from its link_params ' +
          '(the template whose link_params are the same, else the one template whose zone parameter and macro it carries); none: `"\\n"`, null.',
      },
    })
    .post('/admin/api/network-templates/:id/create-offer', async ({ admin, params, body, set, request }) => {
      const created = await invoke(verbs.networks.createOffer as V, adminActor(admin), { base_url: baseOf(request), ...obj(body), id: params.id })
      set.status = 201
      return created
    }, {
      permission: 'campaigns:write', params: idParams,
      body: lenientBody("the new offer: the network's offer link in url; payout and currency as for POST /admin/api/offers", {
        type: 'object',
        properties: {
          name: { type: 'string', maxLength: 200 }, slug: { type: 'string', maxLength: 64 }, url: { type: 'string', maxLength: 4000 },
          payout: { type: 'number' }, currency: { type: 'string', maxLength: 3 },
        },
        required: ['name', 'slug', 'url'],
      }),
      detail: { tags: ['network templates'], summary: verbs.networks.createOffer.summary },
    })
}
