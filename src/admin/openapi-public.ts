// OpenAPI description of the public routes that are Bun routes outside Elysia (the hot paths and the
// hosted landings' files), which the plugin cannot see: described here and merged in as
// `documentation.paths`. /postback's own description is postback/docs.ts.
import { postbackOperation } from '../postback'

const SUBS = Array.from({ length: 10 }, (_, i) => ({
  name: `sub${i + 1}`,
  in: 'query',
  required: false,
  description: `free value stored on the click (256 characters kept) and available as the {sub${i + 1}} macro; first occurrence wins`,
  schema: { type: 'string' },
}))

const slug = { name: 'slug', in: 'path', required: true, description: 'the campaign slug', schema: { type: 'string' } }

const redirectResponses = {
  302: {
    description: 'to the landing or offer URL with its macros filled in; sets the _svc_click cookie (GET only)',
    headers: {
      Location: { schema: { type: 'string' }, description: 'where the visitor goes' },
      'Set-Cookie': { schema: { type: 'string' }, description: '_svc_click=<click_id>; Path=/; Max-Age=…; SameSite=Lax' },
    },
  },
  404: {
    description: 'no active campaign with this slug',
    content: { 'application/json': { schema: { type: 'object', properties: { error: { type: 'string', example: 'campaign not found' } } } } },
  },
  503: {
    description: 'the click could not be committed; retry',
    headers: { 'Retry-After': { schema: { type: 'integer', example: 1 } } },
    content: { 'application/json': { schema: { type: 'object', properties: { error: { type: 'string', example: 'temporarily unavailable' } } } } },
  },
}

const clickId = (description: string) => ({ name: 'click_id', in: 'query', required: false, description, schema: { type: 'string', format: 'uuid' } })

const cost = {
  name: 'cost', in: 'query', required: false, schema: { type: 'string', example: '0.015' },
  description: 'cost of this click, for campaigns with cost_model "param": a plain decimal ≥ 0, anything else counts as 0',
}

const other = {
  name: 'params', in: 'query', required: false, style: 'form', explode: true,
  description: 'any other parameter (utm_source…) is stored on the click: at most 50 keys, 256 characters each',
  schema: { type: 'object', additionalProperties: { type: 'string' } },
}

const operation = (summary: string, description: string, parameters: unknown[]) => ({
  tags: ['public'], summary, description, security: [], parameters, responses: redirectResponses,
})

const click = operation(
  'Tracking link: records a click and redirects',
  'Creates a click (committed before the 302 leaves) and redirects to a weighted landing or offer. HEAD answers the same kind of 302 and records nothing. A trailing slash is accepted.',
  [slug, ...SUBS, cost, clickId('an existing click of this campaign to continue instead of creating a new one'), other],
)

const offer = operation(
  'Landing → offer step: continues a click and redirects to its offer',
  'Continues the click named by click_id, else by the _svc_click cookie (the parameter wins); without a usable click, creates one. HEAD records nothing. A trailing slash is accepted.',
  [slug, clickId('the click to continue (else the _svc_click cookie)'), ...SUBS, cost, other],
)

const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } })
const landingSlug = { name: 'slug', in: 'path', required: true, description: 'the landing slug', schema: { type: 'string' } }

const landingPage = {
  tags: ['public'], security: [],
  summary: 'Hosted landing page',
  description: 'The landing\'s html with its macros filled in (HTML-escaped) and pixel.js injected. The click is click_id, else the _svc_click cookie; without one a click is made for the landing\'s campaign (?campaign=<slug> when it rotates the landing, else the lowest campaign id). HEAD records nothing.',
  parameters: [
    landingSlug, clickId('the click to continue (else the _svc_click cookie)'),
    { name: 'campaign', in: 'query', required: false, description: 'for a visit without a click: the campaign (slug) to make it in', schema: { type: 'string' } },
    { ...other, description: 'any parameter fills the {name} macro of the same name' },
  ],
  responses: { 200: html('the page; sets the _svc_click cookie'), 302: { description: "a new click flagged as a bot, to the campaign's bot_url" }, 404: html('no hosted landing with this slug') },
}

const landingAsset = {
  tags: ['public'], security: [], summary: 'A static file of a hosted landing',
  description: 'Served with a strong ETag (304 on If-None-Match) and Cache-Control: public, max-age=604800.',
  parameters: [landingSlug, { name: 'path', in: 'path', required: true, description: 'the asset path, e.g. img/hero.png', schema: { type: 'string' } }],
  responses: { 200: { description: 'the file' }, 304: { description: 'not modified' }, 404: html('no such asset') },
}

const script = (name: string, what: string) => ({
  get: {
    tags: ['public'], security: [], operationId: `get${name}`, summary: what,
    description: 'Embedded in the binary; Cache-Control: public, max-age=3600, a strong ETag, 304 on If-None-Match.',
    responses: { 200: { description: 'the script', content: { 'text/javascript': { schema: { type: 'string' } } } }, 304: { description: 'not modified' } },
  },
})

export const publicPaths = {
  '/lp/{slug}': { get: { ...landingPage, operationId: 'getLandingPage' }, head: { ...landingPage, operationId: 'headLandingPage', summary: 'Hosted landing page (headers only, records nothing)' } },
  '/lp/{slug}/{path}': { get: { ...landingAsset, operationId: 'getLandingAsset' } },
  '/pixel.js': script('PixelJs', 'pixel.js: page views of hosted landings, lead-form fields'),
  '/client.js': script('ClientJs', 'client.js: svc.track custom events, click id across pages, lead forms'),
  '/cloak.js': script('CloakJs', 'cloak.js: client-side bot signals'),
  '/i18n.js': script('I18nJs', 'i18n.js: translates data-i18n elements from the landing\'s dictionaries'),
  '/c/{slug}': { get: { ...click, operationId: 'getClick' }, head: { ...click, operationId: 'headClick', summary: 'Preview of a tracking link (records nothing)' } },
  '/postback': { get: postbackOperation },
  '/r/{slug}': { get: { ...offer, operationId: 'getOfferRedirect' }, head: { ...offer, operationId: 'headOfferRedirect', summary: 'Preview of the offer step (records nothing)' } },
}
