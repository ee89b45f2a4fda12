// The admin routes of landing assets (section landings). The admin API is JSON-only; uploads are the one
// exception, in two shapes:
//   PUT  /admin/api/landings/:id/assets/<path>  the raw file as the body, its type in Content-Type
//   POST /admin/api/landings/:id/assets         multipart/form-data: a `file` part (its filename is the path
//                                               unless a `path` field is given; the part's type is the type)
// Both answer 201 with the asset record when it is new, 200 when it replaced the one at that path.
// The session and permission are checked before the body is read (401/403 first). A body over the upload
// limit (src/http/body-limit.ts: 5 MB raw, 5 MB + 64 KB multipart) is 413 whether it declares its length
// (refused before reading) or not (reading stops past the limit). A browser request from another site
// (Sec-Fetch-Site: cross-site or same-site) is refused: a multipart POST needs no CORS preflight, so a
// page of a sibling subdomain could otherwise post a file with the admin's cookie. With the session cookie,
// an Origin that is not the dashboard's (`null` included: a sandboxed landing) is refused too, as for
// every admin write (http/admin-guard.ts refuseCrossSiteWrite).
import { Elysia, t } from 'elysia'
import type { AppContext } from '../context'
import type { AdminUser } from '../lib/permissions'
import { can } from '../lib/permissions'
import { adminGuard, authenticateAdmin, earlyCheck, refuseCrossSiteWrite } from '../http/admin-guard'
import { ASSET_BODY_BYTES, ASSET_MULTIPART_BODY_BYTES } from '../http/body-limit'
import { firstParam as first, okResponse, pageQuery, parseId } from '../http/collection'
import { errorResponse } from '../http/errors'
import { readBodyLimited } from '../http/raw-body'
import { forbidden, invalid } from '../lib/errors'
import { adminActor, invoke } from '../lib/verb'
import { ASSET_TYPES, assetPathFromUrl, type AssetVerbs, MAX_ASSET_BYTES, MAX_LANDING_ASSET_BYTES, servedType } from './assets'

const tags = ['landings']
const BASE = '/admin/api/landings/:id/assets'
const landingParams = t.Object({ id: t.String({ description: 'landing id' }) })
// The wildcard routes (…/assets/<path>) carry no params schema: Elysia cannot build its mirror for a '*' key.

/** What an upload route's body turned out to be once read: the bytes, or too many of them. */
class TooLarge {
  constructor(readonly limit: number) {}
}

/** The request body, read until `limit` bytes; past it, reading stops (the rest is never buffered). */
async function readLimited(request: Request, limit: number): Promise<Uint8Array | TooLarge> {
  return (await readBodyLimited(request, limit)) ?? new TooLarge(limit)
}

/** Connection: close, as body-limit.ts does: the unread rest of the body must not be taken for a request. */
const tooLarge = (limit: number) => errorResponse(413, `request body too large (at most ${limit} bytes)`, { connection: 'close' })

function refuseCrossSite(request: Request) {
  const site = request.headers.get('sec-fetch-site')
  if (site === 'cross-site' || site === 'same-site') throw forbidden('uploads from another site are refused')
}

function requireMultipart(request: Request) {
  const mime = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (mime !== 'multipart/form-data') {
    throw invalid('request body must be multipart/form-data with a "file" part (or PUT the raw file to /admin/api/landings/:id/assets/<path>)')
  }
}

/**
 * `{ assetUpload: 'raw' | 'multipart' }`: landings:write, checked before the body is read (as the
 * `permission` macro, but the body is a file, not JSON), then the body read as bytes up to the limit.
 */
function uploadGuard(ctx: AppContext) {
  const seen = new WeakMap<Request, Promise<AdminUser>>()
  const authorize = (request: Request): Promise<AdminUser> => {
    let user = seen.get(request)
    if (!user) {
      seen.set(request, (user = authenticateAdmin(ctx, request).then((admin) => {
        if (admin.agent ? !admin.agent.scopes.has('landings:write') : !can(admin, 'landings', 'write')) {
          throw forbidden(admin.agent ? 'missing scope landings:write' : 'missing permission landings:write')
        }
        return admin
      })))
    }
    return user
  }
  return new Elysia({ name: 'landing-asset-upload' }).macro({
    assetUpload: (shape: 'raw' | 'multipart') => ({
      ...earlyCheck(async ({ request }, phase) => {
        const admin = await authorize(request)
        refuseCrossSite(request)
        // And, for the session cookie, every other browser mark of a foreign page (an Origin that is not the
        // dashboard's, `null` included: a sandboxed landing page), as for every admin write.
        if (!admin.agent) refuseCrossSiteWrite(ctx.config, request)
        if (phase === 'parse' && shape === 'multipart') requireMultipart(request)
      }, (request) => readLimited(request, shape === 'raw' ? ASSET_BODY_BYTES : ASSET_MULTIPART_BODY_BYTES)),
      resolve: async ({ request }: { request: Request }) => ({ admin: await authorize(request) }),
      // An agent token's upload gets its audit row like every other admin request (the file itself is not logged).
      afterResponse: ({ request, set }: { request: Request; set: { status?: number | string } }) =>
        ctx.agents.restAnswered(request, typeof set.status === 'number' ? set.status : 200, undefined),
    }),
  })
}

const recordSchema = t.Object({
  id: t.Number(), landing_id: t.Number(), path: t.String(), content_type: t.String(), size: t.Number(),
  etag: t.String({ description: 'the ETag header of the public answer (quoted)' }),
  url: t.String({ description: 'public address: /lp/<landing slug>/<path>' }),
  created_at: t.String(), updated_at: t.String(),
})

const RULES = `Up to ${MAX_ASSET_BYTES} bytes per asset, ${MAX_LANDING_ASSET_BYTES} per landing (400 past it). ` +
  `Types: ${ASSET_TYPES.join(', ')}; the type must match the path's extension and the bytes (400 otherwise). ` +
  'Paths: segments of letters, digits, ".", "_", "-", joined by "/", up to 200 characters. 201 when created, 200 when replaced.'

/** The admin routes of landing assets; the landings feature .use()s them. */
export function assetRoutes(ctx: AppContext, verbs: AssetVerbs) {
  const landingId = (raw: string) => parseId(raw, 'landing')
  return new Elysia({ name: 'landing-assets' })
    .use(adminGuard(ctx))
    .use(uploadGuard(ctx))
    .get(BASE, async ({ params, query, admin }) =>
      invoke(verbs.list, adminActor(admin), { id: landingId(params.id), limit: first(query.limit), cursor: first(query.cursor) }),
    { permission: 'landings:read', params: landingParams, query: pageQuery, detail: { tags, summary: verbs.list.summary } })
    .post(BASE, async ({ params, body, request, set, admin }) => {
      if (body instanceof TooLarge) return tooLarge(body.limit)
      let form: FormData
      try {
        form = await new Response(body as Uint8Array<ArrayBuffer>, { headers: { 'content-type': request.headers.get('content-type') ?? '' } }).formData()
      } catch {
        throw invalid('body: not a valid multipart/form-data body')
      }
      const file = form.get('file')
      if (!(file instanceof Blob)) throw invalid('file: a file part named "file" is required')
      const field = form.get('path')
      if (field !== null && typeof field !== 'string') throw invalid('path: must be a text field')
      const path = field !== null && field !== '' ? field : (file as File).name ?? ''
      const { asset, created } = await invoke(verbs.put, adminActor(admin), {
        id: landingId(params.id), path, content_type: file.type || undefined, body: new Uint8Array(await file.arrayBuffer()),
      })
      set.status = created ? 201 : 200
      return asset
    }, {
      assetUpload: 'multipart', params: landingParams,
      detail: { tags, summary: `${verbs.put.summary} (multipart)`, description: `multipart/form-data with a "file" part; its filename is the path unless a "path" field is given. ${RULES}` },
    })
    .put(`${BASE}/*`, async ({ params, body, request, set, admin }) => {
      if (body instanceof TooLarge) return tooLarge(body.limit)
      const { asset, created } = await invoke(verbs.put, adminActor(admin), {
        id: landingId(params.id), path: assetPathFromUrl(params['*']), content_type: request.headers.get('content-type') ?? undefined, body: body as Uint8Array,
      })
      set.status = created ? 201 : 200
      return asset
    }, {
      assetUpload: 'raw',
      detail: { tags, summary: verbs.put.summary, description: `The raw file as the body, its type in Content-Type; the path after assets/ is the asset's path. ${RULES}` },
    })
    .get(`${BASE}/*`, async ({ params, admin }) => {
      const { asset, body } = await invoke(verbs.get, adminActor(admin), { id: landingId(params.id), path: assetPathFromUrl(params['*']) })
      const name = asset.path.slice(asset.path.lastIndexOf('/') + 1)
      // A download on the admin origin: never rendered there as a page (an SVG could carry script).
      return new Response(body as Uint8Array<ArrayBuffer>, {
        headers: {
          'content-type': servedType(asset.content_type),
          etag: asset.etag,
          'content-disposition': `attachment; filename="${name}"`,
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
        },
      })
    }, { permission: 'landings:read', detail: { tags, summary: verbs.get.summary, description: 'The bytes as uploaded.' } })
    .delete(`${BASE}/*`, async ({ params, admin }) =>
      invoke(verbs.delete, adminActor(admin), { id: landingId(params.id), path: assetPathFromUrl(params['*']) }),
    { permission: 'landings:write', response: okResponse, detail: { tags, summary: verbs.delete.summary } })
}
