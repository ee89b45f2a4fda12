// A landing's html as a visitor would see it, for the admin (GET /admin/api/landings/:id/preview, and
// POST /admin/api/landings/preview for html not saved yet): sample values for the click macros, the
// request's own query parameters for `{name}` macros. Served sandboxed: the page's scripts do not run and
// it gets an opaque origin, so an edited page can never act with the admin's session.
import { Elysia, t } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { parseId } from '../http/collection'
import { invalid, notFound } from '../lib/errors'
import { MAX_HTML, type CatalogStore } from '../catalog'
import { newClick } from '../tracking'
import { compilePage, renderPage } from './pages'

/** The click id a preview shows for {click_id}: plainly not a real one. */
export const PREVIEW_CLICK_ID = '00000000-0000-4000-8000-000000000000'
const PREVIEW_CSP = "sandbox; default-src 'none'; img-src * data:; style-src * 'unsafe-inline'; font-src * data:; media-src *"

function preview(landingId: number, html: string, query: Record<string, unknown>, set: { headers: Record<string, unknown> }): string {
  const params: Record<string, string> = {}
  for (const [k, v] of Object.entries(query)) if (typeof v === 'string') params[k] = v
  Object.assign(set.headers, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PREVIEW_CSP, 'x-frame-options': 'SAMEORIGIN' })
  const page = compilePage({ id: landingId, slug: 'preview', html, emailListId: null })
  const click = newClick({ clickId: PREVIEW_CLICK_ID, campaignId: 0, landingId, createdAt: Date.now() })
  return renderPage(page, { click, route: null, landingId, query: params, offerUrl: '#' })
}

export function previewRoutes(ctx: AppContext, catalog: CatalogStore) {
  return new Elysia({ name: 'landing-preview' })
    .use(adminGuard(ctx))
    .get('/admin/api/landings/:id/preview', async ({ params, query, set }) => {
      const landing = await catalog.findLanding(parseId(params.id, 'landing'))
      if (!landing) throw notFound('landing not found')
      if (landing.html === null) throw invalid('html: this landing is hosted elsewhere (url); it has no html to preview')
      return preview(landing.id, landing.html, query, set)
    }, { permission: 'landings:read', detail: { tags: ['landings'], summary: 'The landing page as a visitor sees it (sample click, sandboxed: scripts do not run)' } })
    .post('/admin/api/landings/preview', ({ body, query, set }) => preview(0, body.html, query, set), {
      // An editor's tool (the html being written), so it asks what editing does.
      permission: 'landings:write',
      body: t.Object({ html: t.String({ maxLength: MAX_HTML }) }),
      detail: { tags: ['landings'], summary: 'Preview html that is not saved yet (same rendering as GET …/:id/preview)' },
    })
}
