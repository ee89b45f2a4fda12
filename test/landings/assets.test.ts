// Landing assets through HTTP on a real server (SQLite, or Postgres under SVC_TEST_ENGINE=postgres): the
// admin API (upload raw and multipart, replace, list, download, delete; every check's 400; 401/403 before
// any body is read; 413 on declared and on chunked bodies; the per-landing quota; the cascade from
// landings) and the public answer of /lp/<slug>/<path> (bytes, ETag/304, HEAD, SVG CSP, HTML 404).
// Every request goes to the real server (src/landings/index.ts mounts the asset routes and /lp/:slug/*):
// unmounting either makes these tests fail.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { ASSET_BODY_BYTES, ASSET_MULTIPART_BODY_BYTES, BODY_HARD_CAP, bodyLimitOf } from '../../src/http/body-limit'
import { MAX_ASSET_BYTES, MAX_LANDING_ASSET_BYTES } from '../../src/landings/assets'
import { assetStore } from '../../src/landings/store/assets'
import { startServer, type TestServer } from '../helpers/server'

/** A real 1×1 PNG (67 bytes). */
const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0))
/** Another PNG (different bytes: a different ETag). */
const PNG2 = Uint8Array.from([...PNG, 0, 0, 0, 0])
const WOFF2 = Uint8Array.from([...new TextEncoder().encode('wOF2'), 0x00, 0x01, 0x00, 0x00, ...new Uint8Array(40)])
const enc = (s: string) => new TextEncoder().encode(s)
const etagOf = (b: Uint8Array) => `"${createHash('sha256').update(b).digest('hex').slice(0, 32)}"`
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** `size` bytes that are a PNG (the 1×1 image, then zeros after its IEND). */
function bigPng(size: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size)
  out.set(PNG)
  return out
}

let s: TestServer
let owner: string

let landingId: number
const SLUG = 'assets-lp'

async function createLanding(slug: string): Promise<number> {
  const res = await s.api('POST', '/admin/api/landings', { name: slug, slug, html: '<h1>Hi</h1>' })
  expect(res.status).toBe(201)
  return res.body.id
}

/** PUT the raw file (no content-type header when `type` is null). */
function put(path: string, body: BodyInit | null, type: string | null, cookie: string | null = owner, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { ...extra }
  if (type !== null) headers['content-type'] = type
  if (cookie) headers.cookie = cookie
  return fetch(`${s.base}${path}`, { method: 'PUT', headers, body, duplex: 'half' } as RequestInit)
}

function post(path: string, form: FormData, cookie: string | null = owner, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { ...extra }
  if (cookie) headers.cookie = cookie
  return fetch(`${s.base}${path}`, { method: 'POST', headers, body: form })
}

/** A bodiless admin request; a write says it is JSON (the admin API's CSRF rule). */
function call(method: string, path: string, cookie: string | null = owner) {
  const headers: Record<string, string> = cookie ? { cookie } : {}
  if (method !== 'GET' && method !== 'HEAD') headers['content-type'] = 'application/json'
  return fetch(`${s.base}${path}`, { method, headers })
}

const assets = (id = landingId) => `/admin/api/landings/${id}/assets`
const json = async (res: Response) => ({ status: res.status, body: await res.json() })

beforeAll(async () => {
  s = await startServer()
  owner = await s.login()
  landingId = await createLanding(SLUG)
}, 60_000)

afterAll(async () => {
  await s?.destroy()
})

describe('admin API: upload, replace, list, download, delete', () => {
  test('PUT a PNG: 201 with the record; again: 200, same id; the bytes come back', async () => {
    const res = await put(`${assets()}/img/hero.png`, PNG, 'image/png')
    expect(res.status).toBe(201)
    const created = await res.json()
    expect(created).toEqual({
      id: expect.any(Number), landing_id: landingId, path: 'img/hero.png', content_type: 'image/png', size: PNG.byteLength,
      etag: etagOf(PNG), url: `/lp/${SLUG}/img/hero.png`, created_at: expect.stringMatching(ISO), updated_at: created.created_at,
    })

    await Bun.sleep(5)
    const again = await put(`${assets()}/img/hero.png`, PNG2, 'image/png; charset=binary')
    expect(again.status).toBe(200)
    const replaced = await again.json()
    expect(replaced).toEqual({ ...created, size: PNG2.byteLength, etag: etagOf(PNG2), updated_at: expect.stringMatching(ISO) })
    expect(Date.parse(replaced.updated_at)).toBeGreaterThan(Date.parse(created.created_at))

    // The bytes come back as uploaded (the replacement), as a download that never renders on the admin origin.
    const got = await call('GET', `${assets()}/img/hero.png`)
    expect(got.status).toBe(200)
    expect(got.headers.get('content-type')).toBe('image/png')
    expect(got.headers.get('etag')).toBe(etagOf(PNG2))
    expect(got.headers.get('content-disposition')).toBe('attachment; filename="hero.png"')
    expect(got.headers.get('x-content-type-options')).toBe('nosniff')
    expect(got.headers.get('content-security-policy')).toContain('sandbox')
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(PNG2)

    // Back to the 1×1 image for the rest of the tests.
    expect((await put(`${assets()}/img/hero.png`, PNG, 'image/png')).status).toBe(200)
  })

  test("multipart POST: the file part's name is the path, or the path field; the part's type is the type", async () => {
    const form = new FormData()
    form.append('file', new File([WOFF2], 'Inter.woff2', { type: 'font/woff2' }))
    form.append('path', 'fonts/Inter.woff2')
    const res = await json(await post(assets(), form))
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ path: 'fonts/Inter.woff2', content_type: 'font/woff2', size: WOFF2.byteLength, url: `/lp/${SLUG}/fonts/Inter.woff2` })

    const css = new FormData()
    css.append('file', new File(['body { color: red }'], 'site.css', { type: 'text/css' }))
    const created = await json(await post(assets(), css))
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ path: 'site.css', content_type: 'text/css', size: 19 })

    const again = new FormData()
    again.append('file', new File(['body { color: blue }'], 'site.css', { type: 'text/css' }))
    const replaced = await json(await post(assets(), again))
    expect(replaced.status).toBe(200)
    expect(replaced.body).toMatchObject({ id: created.body.id, size: 20 })

    // No file part, or not multipart at all.
    const none = new FormData()
    none.append('path', 'x.css')
    expect(await json(await post(assets(), none))).toEqual({ status: 400, body: { error: 'file: a file part named "file" is required' } })
    const notForm = await json(await fetch(`${s.base}${assets()}`, { method: 'POST', headers: { cookie: owner, 'content-type': 'application/json' }, body: '{}' }))
    expect(notForm.status).toBe(400)
    expect(notForm.body.error).toStartWith('request body must be multipart/form-data')
  })

  test('types: application/javascript is stored as text/javascript; parameters are ignored; SVG with a prolog is accepted', async () => {
    const js = await json(await put(`${assets()}/js/app.js`, 'console.log(1)', 'application/javascript; charset=utf-8'))
    expect(js.status).toBe(201)
    expect(js.body.content_type).toBe('text/javascript')
    const svg = '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- logo -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    expect((await put(`${assets()}/img/logo.svg`, svg, 'image/svg+xml')).status).toBe(201)
    expect((await put(`${assets()}/data.json`, '{"a":[1,2]}', 'application/json')).status).toBe(201)
    expect((await put(`${assets()}/robots.txt`, 'User-agent: *', 'text/plain')).status).toBe(201)
    expect((await put(`${assets()}/favicon.ico`, Uint8Array.from([0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0, ...new Uint8Array(40)]), 'image/vnd.microsoft.icon')).status).toBe(201)
  })

  test('list: { items, next_cursor } in upload order, paged like every collection', async () => {
    const all = await json(await call('GET', assets()))
    expect(all.status).toBe(200)
    expect(all.body.next_cursor).toBeNull()
    const paths = all.body.items.map((i: { path: string }) => i.path)
    expect(paths).toEqual(['img/hero.png', 'fonts/Inter.woff2', 'site.css', 'js/app.js', 'img/logo.svg', 'data.json', 'robots.txt', 'favicon.ico'])
    expect(all.body.items[0]).toEqual({
      id: expect.any(Number), landing_id: landingId, path: 'img/hero.png', content_type: 'image/png', size: PNG.byteLength,
      etag: etagOf(PNG), url: `/lp/${SLUG}/img/hero.png`, created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO),
    })
    const first = await json(await call('GET', `${assets()}?limit=3`))
    expect(first.body.items.map((i: { path: string }) => i.path)).toEqual(paths.slice(0, 3))
    expect(first.body.next_cursor).toBe(String(first.body.items[2].id))
    const next = await json(await call('GET', `${assets()}?limit=3&cursor=${first.body.next_cursor}`))
    expect(next.body.items.map((i: { path: string }) => i.path)).toEqual(paths.slice(3, 6))
    expect((await json(await call('GET', `${assets()}?limit=0`))).status).toBe(400)
  })

  test('unknown landing or asset: 404 naming which; DELETE answers { ok: true } once', async () => {
    const NO_LANDING = { error: 'landing not found' }
    expect(await json(await call('GET', assets(999999)))).toEqual({ status: 404, body: NO_LANDING })
    expect(await json(await call('GET', assets(0) + '/x.png'))).toEqual({ status: 404, body: NO_LANDING })
    expect(await json(await put(`${assets(999999)}/x.png`, PNG, 'image/png'))).toEqual({ status: 404, body: NO_LANDING })
    expect(await json(await call('DELETE', `${assets(999999)}/x.png`))).toEqual({ status: 404, body: NO_LANDING })
    expect(await json(await call('GET', `${assets()}/img/none.png`))).toEqual({ status: 404, body: { error: 'asset not found' } })

    expect((await put(`${assets()}/tmp/gone.png`, PNG, 'image/png')).status).toBe(201)
    expect(await json(await call('DELETE', `${assets()}/tmp/gone.png`))).toEqual({ status: 200, body: { ok: true } })
    expect(await json(await call('DELETE', `${assets()}/tmp/gone.png`))).toEqual({ status: 404, body: { error: 'asset not found' } })
    expect(await json(await call('GET', `${assets()}/tmp/gone.png`))).toEqual({ status: 404, body: { error: 'asset not found' } })
  })
})

describe('admin API: what an upload must be (400 naming the problem, nothing stored)', () => {
  const stored = async (path: string) => (await call('GET', `${assets()}/${path}`)).status === 200

  test('bytes that are not what the type says', async () => {
    expect(await json(await put(`${assets()}/bad.png`, 'just some text', 'image/png'))).toEqual({ status: 400, body: { error: 'content-type: the file is not a PNG image' } })
    expect(await json(await put(`${assets()}/bad.jpg`, PNG, 'image/jpeg'))).toEqual({ status: 400, body: { error: 'content-type: the file is not a JPEG image (it looks like image/png)' } })
    expect(await json(await put(`${assets()}/bad.woff2`, PNG, 'font/woff2'))).toEqual({ status: 400, body: { error: 'content-type: the file is not a WOFF2 font (it looks like image/png)' } })
    expect(await json(await put(`${assets()}/bad.css`, PNG, 'text/css'))).toEqual({ status: 400, body: { error: 'content-type: the file is not a CSS file (not UTF-8 text)' } })
    expect(await json(await put(`${assets()}/bad.json`, '{nope', 'application/json'))).toEqual({ status: 400, body: { error: 'content-type: the file is not a JSON file (it does not parse)' } })
    expect(await json(await put(`${assets()}/bad.svg`, '<html><script>alert(1)</script></html>', 'image/svg+xml'))).toEqual({ status: 400, body: { error: 'content-type: the file is not an SVG image (it must start with <svg)' } })
    expect(await json(await put(`${assets()}/bad.txt`, 'a\u0000b', 'text/plain'))).toEqual({ status: 400, body: { error: 'content-type: the file is not a text file (it holds NUL bytes)' } })
    for (const p of ['bad.png', 'bad.jpg', 'bad.woff2', 'bad.css', 'bad.json', 'bad.svg', 'bad.txt']) expect(await stored(p)).toBe(false)
  })

  test('a type that does not match the extension, an unsupported or missing type, an empty file', async () => {
    expect(await json(await put(`${assets()}/img/x.css`, PNG, 'image/png'))).toEqual({
      status: 400, body: { error: 'content-type: image/png does not match the extension of img/x.css (a .css file must be text/css)' },
    })
    const pdf = await json(await put(`${assets()}/doc.png`, '%PDF-1.4', 'application/pdf'))
    expect(pdf.status).toBe(400)
    expect(pdf.body.error).toStartWith('content-type: application/pdf is not accepted; accepted: image/png, image/jpeg, image/gif, image/webp, image/avif, image/svg+xml, image/x-icon, text/css, font/woff, font/woff2, font/ttf, font/otf, text/javascript, application/json, text/plain')
    const html = await json(await put(`${assets()}/page.html`, '<p>x</p>', 'text/html'))
    expect(html.status).toBe(400)
    expect(html.body.error).toStartWith('path: the file name must end in one of .png, .jpg')
    const missing = await json(await put(`${assets()}/x.png`, PNG, null))
    expect(missing.status).toBe(400)
    expect(missing.body.error).toStartWith('content-type: missing; accepted: ')
    expect(await json(await put(`${assets()}/x.png`, new Uint8Array(0), 'image/png'))).toEqual({ status: 400, body: { error: 'body: the file is empty' } })
    expect(await stored('x.png')).toBe(false)
  })

  test('paths: traversal, empty segments, odd characters, too long', async () => {
    const PATH_CHARS = 'path: only letters, digits, ".", "_", "-" and "/" between segments are allowed'
    expect(await json(await put(`${assets()}/a//b.png`, PNG, 'image/png'))).toEqual({ status: 400, body: { error: 'path: must not contain an empty segment (// or a trailing /)' } })
    expect(await json(await put(`${assets()}/a/b.png/`, PNG, 'image/png'))).toEqual({ status: 400, body: { error: 'path: must not contain an empty segment (// or a trailing /)' } })
    expect(await json(await put(`${assets()}/a%20b.png`, PNG, 'image/png'))).toEqual({ status: 400, body: { error: PATH_CHARS } })
    expect(await json(await put(`${assets()}/${'a'.repeat(197)}.png`, PNG, 'image/png'))).toEqual({ status: 400, body: { error: 'path: must be 1 to 200 characters' } })

    // A client sends "../" and "%2e%2e/" in a URL as they are only over a raw socket (fetch resolves them);
    // the server resolves them too, so they never reach the route: nothing is stored, wherever it would land.
    const raw = await rawRequest(new URL(s.base), `PUT ${assets()}/%2e%2e/x.png HTTP/1.1`, PNG, { 'content-type': 'image/png', cookie: owner })
    expect(raw.status).toBeGreaterThanOrEqual(400)
    const raw2 = await rawRequest(new URL(s.base), `PUT ${assets()}/img/../../x.png HTTP/1.1`, PNG, { 'content-type': 'image/png', cookie: owner })
    expect(raw2.status).toBeGreaterThanOrEqual(400)

    // A path given in a form field reaches the check as written.
    const field = async (path: string) => {
      const form = new FormData()
      form.append('file', new File([PNG], 'x.png', { type: 'image/png' }))
      form.append('path', path)
      return json(await post(assets(), form))
    }
    expect(await field('../x.png')).toEqual({ status: 400, body: { error: 'path: . and .. segments are not allowed' } })
    expect(await field('img/./x.png')).toEqual({ status: 400, body: { error: 'path: . and .. segments are not allowed' } })
    expect(await field('%2e%2e/x.png')).toEqual({ status: 400, body: { error: PATH_CHARS } })
    expect(await field('/etc/x.png')).toEqual({ status: 400, body: { error: 'path: must not start with /' } })
    expect(await field('a\\b.png')).toEqual({ status: 400, body: { error: PATH_CHARS } })

    const list = await json(await call('GET', assets()))
    expect(list.body.items.map((i: { path: string }) => i.path)).not.toContain('x.png')
  })
})

describe('admin API: sizes', () => {
  test('the limits agree: 5 MB raw, 5 MB + 64 KB multipart, both under Bun\'s hard cap', () => {
    expect(ASSET_BODY_BYTES).toBe(MAX_ASSET_BYTES)
    expect(ASSET_MULTIPART_BODY_BYTES).toBe(MAX_ASSET_BYTES + 64 * 1024)
    expect(BODY_HARD_CAP).toBeGreaterThan(ASSET_MULTIPART_BODY_BYTES)
    expect(bodyLimitOf('PUT', '/admin/api/landings/1/assets/img/x.png')).toBe(ASSET_BODY_BYTES)
    expect(bodyLimitOf('POST', '/admin/api/landings/1/assets')).toBe(ASSET_MULTIPART_BODY_BYTES)
    expect(bodyLimitOf('POST', '/admin/api/landings/1/assets?x=1')).toBe(ASSET_MULTIPART_BODY_BYTES)
    expect(bodyLimitOf('POST', '/admin/api/landings')).toBeLessThan(ASSET_BODY_BYTES)
    expect(bodyLimitOf('PATCH', '/admin/api/landings/1/assets/x.png')).toBeLessThan(ASSET_BODY_BYTES)
  })

  test('exactly 5 MB is stored; 5 MB + 1 byte is 413, declared or chunked; a 5 MB + 1 multipart file is 400', async () => {
    const five = await json(await put(`${assets()}/big/five.png`, bigPng(MAX_ASSET_BYTES), 'image/png'))
    expect(five.status).toBe(201)
    expect(five.body.size).toBe(MAX_ASSET_BYTES)

    const TOO_LARGE = { error: `request body too large (at most ${MAX_ASSET_BYTES} bytes)` }
    const declared = await put(`${assets()}/big/over.png`, bigPng(MAX_ASSET_BYTES + 1), 'image/png')
    expect(await json(declared)).toEqual({ status: 413, body: TOO_LARGE })

    // No Content-Length: the route stops reading past the limit.
    const over = bigPng(MAX_ASSET_BYTES + 1)
    const chunked = new ReadableStream<Uint8Array>({
      start(c) {
        for (let at = 0; at < over.byteLength; at += 256 * 1024) c.enqueue(over.subarray(at, at + 256 * 1024))
        c.close()
      },
    })
    const streamed = await put(`${assets()}/big/over.png`, chunked, 'image/png')
    expect(streamed.headers.get('content-length')).not.toBeNull() // an answer with a body, not a dropped connection
    expect(await json(streamed)).toEqual({ status: 413, body: TOO_LARGE })

    const form = new FormData()
    form.append('file', new File([bigPng(MAX_ASSET_BYTES + 1)], 'over.png', { type: 'image/png' }))
    expect(await json(await post(assets(), form))).toEqual({
      status: 400, body: { error: `body: the file is ${MAX_ASSET_BYTES + 1} bytes, more than the ${MAX_ASSET_BYTES} allowed for one asset` },
    })
    expect((await call('GET', `${assets()}/big/over.png`)).status).toBe(404)
    expect((await call('DELETE', `${assets()}/big/five.png`)).status).toBe(200)
  }, 60_000)

  test(`a landing's assets take at most ${MAX_LANDING_ASSET_BYTES} bytes together (400); replacing within it is fine`, async () => {
    const id = await createLanding('quota-lp')
    const file = bigPng(MAX_ASSET_BYTES)
    for (let i = 0; i < MAX_LANDING_ASSET_BYTES / MAX_ASSET_BYTES; i++) {
      expect((await put(`${assets(id)}/f${i}.png`, file, 'image/png')).status).toBe(201)
    }
    expect(await json(await put(`${assets(id)}/one-more.png`, PNG, 'image/png'))).toEqual({
      status: 400,
      body: { error: `body: the landing's assets would take ${MAX_LANDING_ASSET_BYTES + PNG.byteLength} bytes, more than the ${MAX_LANDING_ASSET_BYTES} allowed for one landing; delete some first` },
    })
    expect((await put(`${assets(id)}/f0.png`, PNG, 'image/png')).status).toBe(200) // smaller now
    expect((await put(`${assets(id)}/f1.png`, file, 'image/png')).status).toBe(200) // same size again
    expect((await put(`${assets(id)}/one-more.png`, PNG, 'image/png')).status).toBe(201)
    expect(await assetStore(s.ctx.database).totalSize(id)).toBe(MAX_LANDING_ASSET_BYTES - MAX_ASSET_BYTES + 2 * PNG.byteLength)
  }, 120_000)
})

describe('admin API: who may', () => {
  let reader: string
  let nobody: string
  beforeAll(async () => {
    const mk = async (email: string, permissions: unknown) => {
      expect((await s.api('POST', '/admin/api/users', { email, password: 'long-enough-pass-1', permissions })).status).toBe(201)
      return s.login(email, 'long-enough-pass-1')
    }
    reader = await mk('reader@example.com', { landings: { read: true } })
    nobody = await mk('nobody@example.com', { campaigns: { read: true, write: true } })
  })

  test('a stranger: 401 on every route, before the body is read; nothing stored', async () => {
    const NOT_AUTH = { status: 401, body: { error: 'not authenticated' } }
    expect(await json(await put(`${assets()}/s.png`, PNG, 'image/png', null))).toEqual(NOT_AUTH)
    // Even a body over the read limit without a length: refused before a byte is read.
    const endless = new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(new Uint8Array(64 * 1024)) })
    expect(await json(await put(`${assets()}/s.png`, endless, 'image/png', null))).toEqual(NOT_AUTH)
    const form = new FormData()
    form.append('file', new File([PNG], 's.png', { type: 'image/png' }))
    expect(await json(await post(assets(), form, null))).toEqual(NOT_AUTH)
    expect(await json(await call('GET', assets(), null))).toEqual(NOT_AUTH)
    expect(await json(await call('GET', `${assets()}/img/hero.png`, null))).toEqual(NOT_AUTH)
    expect(await json(await call('DELETE', `${assets()}/img/hero.png`, null))).toEqual(NOT_AUTH)
    expect(await json(await put(`${assets()}/s.png`, PNG, 'image/png', 'svc_admin_session=forged.value'))).toEqual(NOT_AUTH)
    expect((await call('GET', `${assets()}/s.png`)).status).toBe(404)
  })

  test('landings:read may list and download, not upload or delete (403); no landings permission: 403 on all', async () => {
    const NO_WRITE = { status: 403, body: { error: 'missing permission landings:write' } }
    expect((await call('GET', assets(), reader)).status).toBe(200)
    expect((await call('GET', `${assets()}/img/hero.png`, reader)).status).toBe(200)
    expect(await json(await put(`${assets()}/r.png`, PNG, 'image/png', reader))).toEqual(NO_WRITE)
    const form = new FormData()
    form.append('file', new File([PNG], 'r.png', { type: 'image/png' }))
    expect(await json(await post(assets(), form, reader))).toEqual(NO_WRITE)
    // The not-multipart 400 comes after the permission: a reader learns nothing about the route's body.
    expect(await json(await fetch(`${s.base}${assets()}`, { method: 'POST', headers: { cookie: reader, 'content-type': 'application/json' }, body: '{}' }))).toEqual(NO_WRITE)
    expect(await json(await call('DELETE', `${assets()}/img/hero.png`, reader))).toEqual(NO_WRITE)

    const NO_READ = { status: 403, body: { error: 'missing permission landings:read' } }
    expect(await json(await call('GET', assets(), nobody))).toEqual(NO_READ)
    expect(await json(await call('GET', `${assets()}/img/hero.png`, nobody))).toEqual(NO_READ)
    expect(await json(await put(`${assets()}/r.png`, PNG, 'image/png', nobody))).toEqual(NO_WRITE)
    expect((await call('GET', `${assets()}/r.png`)).status).toBe(404)
  })

  test('an upload a browser sends from another site is refused (403); same-origin is fine', async () => {
    const refused = { status: 403, body: { error: 'uploads from another site are refused' } }
    expect(await json(await put(`${assets()}/cs.png`, PNG, 'image/png', owner, { 'sec-fetch-site': 'cross-site' }))).toEqual(refused)
    const form = new FormData()
    form.append('file', new File([PNG], 'cs.png', { type: 'image/png' }))
    expect(await json(await post(assets(), form, owner, { 'sec-fetch-site': 'same-site' }))).toEqual(refused)
    expect((await put(`${assets()}/cs.png`, PNG, 'image/png', owner, { 'sec-fetch-site': 'same-origin' })).status).toBe(201)
    expect((await call('DELETE', `${assets()}/cs.png`)).status).toBe(200)
  })
})

describe('public answer: /lp/<slug>/<path>', () => {
  const lp = (path: string, init: RequestInit = {}) => fetch(`${s.base}/lp/${SLUG}/${path}`, init)

  test('the bytes with their type, a strong ETag, a week of caching, nosniff', async () => {
    const res = await lp('img/hero.png')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/png')
    expect(res.headers.get('etag')).toBe(etagOf(PNG))
    expect(res.headers.get('cache-control')).toBe('public, max-age=604800')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('content-security-policy')).toBe('sandbox allow-scripts allow-forms allow-popups allow-top-navigation-by-user-activation')
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(PNG)

    const css = await lp('site.css')
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8')
    expect(await css.text()).toBe('body { color: blue }')
    expect((await lp('js/app.js')).headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect((await lp('fonts/Inter.woff2')).headers.get('content-type')).toBe('font/woff2')
  })

  test('If-None-Match with the ETag: 304 without a body; another ETag: 200', async () => {
    const etag = etagOf(PNG)
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await lp('img/hero.png', { headers: { 'if-none-match': header } })
      expect(res.status).toBe(304)
      expect(res.headers.get('etag')).toBe(etag)
      expect(res.headers.get('cache-control')).toBe('public, max-age=604800')
      expect(await res.text()).toBe('')
    }
    const stale = await lp('img/hero.png', { headers: { 'if-none-match': etagOf(PNG2) } })
    expect(stale.status).toBe(200)
    expect(new Uint8Array(await stale.arrayBuffer())).toEqual(PNG)
  })

  test('HEAD: the headers and the length, no body', async () => {
    const res = await lp('img/hero.png', { method: 'HEAD' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/png')
    expect(res.headers.get('etag')).toBe(etagOf(PNG))
    expect(res.headers.get('content-length')).toBe(String(PNG.byteLength))
    expect(await res.text()).toBe('')
  })

  test('an SVG carries a CSP that runs no script and sandboxes it', async () => {
    const res = await lp('img/logo.svg')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8')
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; sandbox")
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
  })

  test('unknown slug or path, or a path that is no asset path: an HTML 404', async () => {
    for (const url of [`${s.base}/lp/no-such-landing/img/hero.png`, `${s.base}/lp/${SLUG}/img/none.png`, `${s.base}/lp/${SLUG}/img//hero.png`]) {
      const res = await fetch(url)
      expect(res.status).toBe(404)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      const body = await res.text()
      expect(body).toStartWith('<!doctype html>')
      expect(body).toContain('Not found')
    }
  })

  test('deleting the landing deletes its assets (cascade)', async () => {
    const id = await createLanding('doomed-lp')
    expect((await put(`${assets(id)}/img/hero.png`, PNG, 'image/png')).status).toBe(201)
    expect((await fetch(`${s.base}/lp/doomed-lp/img/hero.png`)).status).toBe(200)
    expect((await s.api('DELETE', `/admin/api/landings/${id}`)).status).toBe(200)
    expect(await json(await call('GET', assets(id)))).toEqual({ status: 404, body: { error: 'landing not found' } })
    expect((await fetch(`${s.base}/lp/doomed-lp/img/hero.png`)).status).toBe(404)
    expect(await assetStore(s.ctx.database).totalSize(id)).toBe(0)
  })

  test('the page and its assets share one address: /lp/<slug> is the page, /lp/<slug>/<path> an asset', async () => {
    const page = await fetch(`${s.base}/lp/${SLUG}`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(await page.text()).toContain('<h1>Hi</h1>')
    expect((await put(`${assets()}/probe.txt`, 'probe', 'text/plain')).status).toBe(201)
    const asset = await fetch(`${s.base}/lp/${SLUG}/probe.txt`)
    expect(asset.status).toBe(200)
    expect(asset.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(await asset.text()).toBe('probe')
    expect(await json(await call('DELETE', `${assets()}/probe.txt`))).toEqual({ status: 200, body: { ok: true } })
    expect((await fetch(`${s.base}/lp/${SLUG}/probe.txt`)).status).toBe(404)
  })
})

/** One HTTP/1.1 request written as is (fetch would resolve "../" in the path); returns the status. */
async function rawRequest(base: URL, requestLine: string, body: Uint8Array, headers: Record<string, string>): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    let out = ''
    Bun.connect({
      hostname: base.hostname, port: Number(base.port),
      socket: {
        open(sock) {
          const head = [requestLine, `host: ${base.host}`, `content-length: ${body.byteLength}`, 'connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)]
          sock.write(head.join('\r\n') + '\r\n\r\n')
          sock.write(body)
        },
        data(_sock, chunk) { out += chunk.toString() },
        close() { resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1] ?? 0) }) },
        error(_sock, err) { reject(err) },
      },
    }).catch(reject)
  })
}
