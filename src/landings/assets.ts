// The static assets of hosted landings (images, CSS, fonts, scripts): the rules an upload must pass, the
// verbs every surface calls (landings.assets.list|get|put|delete), and the public answer for
// /lp/<slug>/<path> (LandingAssets.respond; the route itself is mounted by the landings feature).
//
// Rules (each failure is `invalid`, 400, naming the problem):
// - path: 1–200 characters, segments of [A-Za-z0-9._-] joined by "/", no empty, "." or ".." segment, not
//   starting with "/", and a file extension from EXTENSION_TYPES (the extension decides the served type).
// - size: 1 byte to MAX_ASSET_BYTES (5 MB) per asset; at most MAX_LANDING_ASSET_BYTES (50 MB) for all the
//   assets of one landing together (a replaced asset's old bytes do not count). Over the landing's quota is
//   400, not 409: nothing conflicts, the upload is too big for what is left.
// - type: the declared type (parameters ignored; two aliases folded) must be one of ASSET_TYPES, must be the
//   type of the path's extension, and the bytes must be what the type says: binary formats by their magic
//   bytes (file-type), text formats valid UTF-8 without NUL (JSON must parse; an SVG must start with <svg
//   after an optional BOM, XML declaration, comments and doctype).
//
// Served from our own origin, an asset must never run script there: every answer says nosniff, and an SVG
// carries a CSP with `sandbox` and no script source (an SVG opened as a page cannot run its <script>).
import { ifNoneMatchMatches } from '../http/static-scripts'
import { createHash } from 'node:crypto'
import { Type } from '@sinclair/typebox'
import { invalid, notFound } from '../lib/errors'
import { Int } from '../lib/fields'
import { iso } from '../lib/time'
import { parsePage, toPage } from '../lib/paging'
import { defineVerb } from '../lib/verb'
import type { AssetStore, LandingRef } from './store/assets'
import type { AssetInfo } from './store/types'

/** Bytes one asset may take (src/http/body-limit.ts refuses larger raw uploads before reading them). */
export const MAX_ASSET_BYTES = 5 * 1024 * 1024
/** Bytes all the assets of one landing may take together. */
export const MAX_LANDING_ASSET_BYTES = 50 * 1024 * 1024
export const MAX_ASSET_PATH = 200

/** Every type an asset may have, as stored and served. */
export const ASSET_TYPES = [
  'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/svg+xml', 'image/x-icon',
  'text/css', 'font/woff', 'font/woff2', 'font/ttf', 'font/otf', 'text/javascript', 'application/json', 'text/plain',
] as const
export type AssetType = (typeof ASSET_TYPES)[number]

/** Declared types accepted under another name; stored and served as the canonical one. */
const TYPE_ALIASES: Readonly<Record<string, AssetType>> = {
  'application/javascript': 'text/javascript',
  'image/vnd.microsoft.icon': 'image/x-icon',
}

/** The type each file extension (lower case) must have. */
export const EXTENSION_TYPES: Readonly<Record<string, AssetType>> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif',
  svg: 'image/svg+xml', ico: 'image/x-icon', css: 'text/css', woff: 'font/woff', woff2: 'font/woff2', ttf: 'font/ttf',
  otf: 'font/otf', js: 'text/javascript', mjs: 'text/javascript', json: 'application/json', txt: 'text/plain',
}

/** Binary formats: what file-type must detect in the bytes, and the name used in messages. */
const BINARY: Partial<Record<AssetType, { mimes: readonly string[]; name: string }>> = {
  'image/png': { mimes: ['image/png', 'image/apng'], name: 'a PNG image' }, // an animated PNG is served as image/png
  'image/jpeg': { mimes: ['image/jpeg'], name: 'a JPEG image' },
  'image/gif': { mimes: ['image/gif'], name: 'a GIF image' },
  'image/webp': { mimes: ['image/webp'], name: 'a WebP image' },
  'image/avif': { mimes: ['image/avif'], name: 'an AVIF image' },
  'image/x-icon': { mimes: ['image/x-icon'], name: 'an ICO icon' },
  'font/woff': { mimes: ['font/woff'], name: 'a WOFF font' },
  'font/woff2': { mimes: ['font/woff2'], name: 'a WOFF2 font' },
  'font/ttf': { mimes: ['font/ttf'], name: 'a TrueType font' },
  'font/otf': { mimes: ['font/otf'], name: 'an OpenType font' },
}

/** Text formats: served with `; charset=utf-8`; the name used in messages. */
const TEXT: Partial<Record<AssetType, string>> = {
  'text/css': 'a CSS file',
  'text/javascript': 'a JavaScript file',
  'application/json': 'a JSON file',
  'text/plain': 'a text file',
  'image/svg+xml': 'an SVG image',
}

const ACCEPTED = `accepted: ${ASSET_TYPES.join(', ')} (application/javascript and image/vnd.microsoft.icon are taken as text/javascript and image/x-icon)`
const EXTENSIONS = Object.keys(EXTENSION_TYPES).map((e) => `.${e}`).join(', ')
const SEGMENT = /^[A-Za-z0-9._-]+$/

// ── checks ──

/** A path as it appears in a URL (percent-encoded) → the asset path; a bad escape stays as is (and fails the check). */
export function assetPathFromUrl(raw: string): string {
  if (!raw.includes('%')) return raw
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

/** Why `path` is not an asset path, or null when it is one. */
function pathProblem(path: string): string | null {
  if (path.length < 1 || path.length > MAX_ASSET_PATH) return `path: must be 1 to ${MAX_ASSET_PATH} characters`
  if (path.startsWith('/')) return 'path: must not start with /'
  const segments = path.split('/')
  if (segments.some((s) => s === '')) return 'path: must not contain an empty segment (// or a trailing /)'
  if (segments.some((s) => s === '.' || s === '..')) return 'path: . and .. segments are not allowed'
  if (!segments.every((s) => SEGMENT.test(s))) return 'path: only letters, digits, ".", "_", "-" and "/" between segments are allowed'
  if (extensionType(path) === undefined) return `path: the file name must end in one of ${EXTENSIONS}`
  return null
}

/** The type the extension of `path` calls for, if it is one we serve. */
function extensionType(path: string): AssetType | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1)
  const dot = name.lastIndexOf('.')
  if (dot <= 0) return undefined
  return EXTENSION_TYPES[name.slice(dot + 1).toLowerCase()]
}

/** The path, checked (400 naming the problem). */
export function checkAssetPath(path: string): string {
  const problem = pathProblem(path)
  if (problem) throw invalid(problem)
  return path
}

/** The declared type (a Content-Type value) as one of ASSET_TYPES; 400 listing the accepted ones otherwise. */
export function assetContentType(declared: string | null | undefined): AssetType {
  const mime = (declared ?? '').split(';')[0]!.trim().toLowerCase()
  if (mime === '') throw invalid(`content-type: missing; ${ACCEPTED}`)
  const type = TYPE_ALIASES[mime] ?? mime
  if (!(ASSET_TYPES as readonly string[]).includes(type)) throw invalid(`content-type: ${mime} is not accepted; ${ACCEPTED}`)
  return type as AssetType
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Leading BOM, whitespace, XML declaration, comments, processing instructions and a doctype, before the root element. */
const SVG_PROLOG = /^(?:\uFEFF)?(?:\s+|<\?xml[\s\S]*?\?>|<!--[\s\S]*?-->|<![Dd][Oo][Cc][Tt][Yy][Pp][Ee](?:[^>[]|\[[^\]]*\])*>)*/

/** The bytes are what `type` says (400 naming the problem). */
async function checkContent(type: AssetType, body: Uint8Array): Promise<void> {
  const binary = BINARY[type]
  if (binary) {
    // Loaded on the first binary upload, not at start (memory of a server that never takes one).
    const { fileTypeFromBuffer } = await import('file-type')
    const found = await fileTypeFromBuffer(body).catch(() => undefined)
    if (!found || !binary.mimes.includes(found.mime)) {
      throw invalid(`content-type: the file is not ${binary.name}${found ? ` (it looks like ${found.mime})` : ''}`)
    }
    return
  }
  const name = TEXT[type]!
  let text: string
  try {
    text = utf8.decode(body)
  } catch {
    throw invalid(`content-type: the file is not ${name} (not UTF-8 text)`)
  }
  if (text.includes('\u0000')) throw invalid(`content-type: the file is not ${name} (it holds NUL bytes)`)
  if (type === 'application/json') {
    try {
      JSON.parse(text.replace(/^\uFEFF/, ''))
    } catch {
      throw invalid('content-type: the file is not a JSON file (it does not parse)')
    }
  }
  if (type === 'image/svg+xml') {
    const rest = text.slice(SVG_PROLOG.exec(text)![0].length)
    if (!/^<svg[\s>/]/.test(rest)) throw invalid('content-type: the file is not an SVG image (it must start with <svg)')
  }
}

/** The ETag value of these bytes (unquoted): the first 32 hex characters of their SHA-256. */
export const etagOf = (body: Uint8Array) => createHash('sha256').update(body).digest('hex').slice(0, 32)
const quoted = (etag: string) => `"${etag}"`

export interface CheckedAsset {
  path: string
  contentType: AssetType
  etag: string
}

/** Every rule of one asset except the landing's quota (which the store checks inside its write). */
export async function checkAsset(path: string, declaredType: string | null | undefined, body: Uint8Array): Promise<CheckedAsset> {
  checkAssetPath(path)
  if (body.byteLength === 0) throw invalid('body: the file is empty')
  if (body.byteLength > MAX_ASSET_BYTES) throw invalid(`body: the file is ${body.byteLength} bytes, more than the ${MAX_ASSET_BYTES} allowed for one asset`)
  const contentType = assetContentType(declaredType)
  const expected = extensionType(path)!
  if (expected !== contentType) {
    throw invalid(`content-type: ${contentType} does not match the extension of ${path} (a ${path.slice(path.lastIndexOf('.'))} file must be ${expected})`)
  }
  await checkContent(contentType, body)
  return { path, contentType, etag: etagOf(body) }
}

/** The landing's quota, checked inside the upload's transaction with the bytes of its other assets. */
export function checkLandingQuota(othersBytes: number, size: number): void {
  if (othersBytes + size > MAX_LANDING_ASSET_BYTES) {
    throw invalid(`body: the landing's assets would take ${othersBytes + size} bytes, more than the ${MAX_LANDING_ASSET_BYTES} allowed for one landing; delete some first`)
  }
}

// ── the API record ──

/** An asset as the admin API shows it. `etag` is the ETag header value (quoted); `url` is its public address. */
export interface AssetRecord {
  id: number
  landing_id: number
  path: string
  content_type: string
  size: number
  etag: string
  url: string
  created_at: string
  updated_at: string
}

export const assetUrl = (slug: string, path: string) => `/lp/${slug}/${path}`

export function renderAsset(info: AssetInfo, slug: string): AssetRecord {
  return {
    id: info.id, landing_id: info.landingId, path: info.path, content_type: info.contentType, size: info.size,
    etag: quoted(info.etag), url: assetUrl(slug, info.path), created_at: iso(info.createdAt), updated_at: iso(info.updatedAt),
  }
}

/** An asset and its bytes (the admin's download). */
export interface AssetFile {
  asset: AssetRecord
  body: Uint8Array
}

// ── verbs ──

const LandingId = Int({ minimum: 1 })
const PathInput = Type.String({ description: 'the asset path, e.g. img/hero.png' })

const assetNotFound = () => notFound('asset not found')

export function assetVerbs(store: AssetStore) {
  const landing = async (id: number): Promise<LandingRef> => {
    const found = await store.landing(id)
    if (!found) throw notFound('landing not found')
    return found
  }

  return {
    list: defineVerb({
      name: 'landings.assets.list', summary: "List a landing's assets", permission: 'landings:read',
      input: Type.Object({ id: LandingId, limit: Type.Optional(Type.String()), cursor: Type.Optional(Type.String()) }),
      async run(_actor, input): Promise<{ items: AssetRecord[]; next_cursor: string | null }> {
        const page = parsePage(input)
        const { slug } = await landing(input.id)
        return toPage(await store.list(input.id, page), page, (row) => renderAsset(row, slug))
      },
    }),
    get: defineVerb({
      name: 'landings.assets.get', summary: 'Download one asset of a landing', permission: 'landings:read',
      input: Type.Object({ id: LandingId, path: PathInput }),
      async run(_actor, { id, path }): Promise<AssetFile> {
        const { slug } = await landing(id)
        checkAssetPath(path)
        const row = await store.find(id, path)
        if (!row) throw assetNotFound()
        const { body, ...info } = row
        return { asset: renderAsset(info, slug), body }
      },
    }),
    put: defineVerb({
      name: 'landings.assets.put', summary: 'Upload an asset of a landing (creates it, or replaces the one at that path)', permission: 'landings:write',
      input: Type.Object({
        id: LandingId,
        path: PathInput,
        content_type: Type.Optional(Type.String({ description: `one of ${ASSET_TYPES.join(', ')}` })),
        body: Type.Uint8Array({ description: `the file, 1 to ${MAX_ASSET_BYTES} bytes` }),
      }),
      async run(_actor, { id, path, content_type, body }): Promise<{ asset: AssetRecord; created: boolean }> {
        await landing(id) // 404 before 400: the landing is named in the URL
        const checked = await checkAsset(path, content_type, body)
        const { row, created, landing: l } = await store.put(
          { landingId: id, path: checked.path, contentType: checked.contentType, etag: checked.etag, body, now: Date.now() },
          (others) => checkLandingQuota(others, body.byteLength),
        )
        return { asset: renderAsset(row, l.slug), created }
      },
    }),
    delete: defineVerb({
      name: 'landings.assets.delete', summary: 'Delete one asset of a landing', permission: 'landings:write',
      input: Type.Object({ id: LandingId, path: PathInput }),
      async run(_actor, { id, path }): Promise<{ ok: true }> {
        await landing(id)
        checkAssetPath(path)
        if (!(await store.delete(id, path))) throw assetNotFound()
        return { ok: true as const }
      },
    }),
  }
}

export type AssetVerbs = ReturnType<typeof assetVerbs>

// ── public serving ──

/** A week: an asset changes under a new path, or revalidates through its ETag. */
export const ASSET_CACHE_CONTROL = 'public, max-age=604800'
/** An SVG opened as a page runs nothing, loads nothing, and is sandboxed (no same-origin access). */
export const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

const NOT_FOUND_HTML = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found</title></head>' +
  '<body><h1>Not found</h1><p>There is no such file on this page.</p></body></html>'

/** The Content-Type header of a stored type (text with its charset). */
export const servedType = (type: string) => (TEXT[type as AssetType] ? `${type}; charset=utf-8` : type)


/** The answer for /lp/<slug>/<path>: the asset's bytes, 304 when the browser has them, or an HTML 404. */
export class LandingAssets {
  constructor(private readonly store: AssetStore) {}

  async respond(slug: string, path: string, request: Request): Promise<Response> {
    const method = request.method
    if (method !== 'GET' && method !== 'HEAD') {
      return new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } })
    }
    const head = method === 'HEAD'
    const assetPath = assetPathFromUrl(path)
    if (pathProblem(assetPath)) return notFoundPage(head)
    const ifNoneMatch = request.headers.get('if-none-match')
    // A HEAD or a revalidation does not need the bytes (up to 5 MB): read the row without them first.
    if (head || ifNoneMatch !== null) {
      const info = await this.store.findBySlug(slug, assetPath, false)
      if (!info) return notFoundPage(head)
      const etag = quoted(info.etag)
      if (ifNoneMatchMatches(ifNoneMatch, etag)) return notModified(etag)
      if (head) return new Response(null, { status: 200, headers: { ...assetHeaders(info.contentType, etag), 'content-length': String(info.size) } })
    }
    const row = await this.store.findBySlug(slug, assetPath, true)
    if (!row) return notFoundPage(head)
    const etag = quoted(row.etag)
    if (ifNoneMatchMatches(ifNoneMatch, etag)) return notModified(etag) // replaced between the two reads
    return new Response(row.body as Uint8Array<ArrayBuffer>, { status: 200, headers: assetHeaders(row.contentType, etag) })
  }
}

function assetHeaders(type: string, etag: string): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': servedType(type),
    etag,
    'cache-control': ASSET_CACHE_CONTROL,
    'x-content-type-options': 'nosniff',
  }
  if (type === 'image/svg+xml') headers['content-security-policy'] = SVG_CSP
  return headers
}

const notModified = (etag: string) =>
  new Response(null, { status: 304, headers: { etag, 'cache-control': ASSET_CACHE_CONTROL, 'x-content-type-options': 'nosniff' } })

function notFoundPage(head: boolean): Response {
  return new Response(head ? null : NOT_FOUND_HTML, {
    status: 404,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    },
  })
}
