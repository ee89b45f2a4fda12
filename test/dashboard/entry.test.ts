// How a person reaches the dashboard: /admin is the page; /admin/ with a slash and the bare root (whoever
// asks: a browser, curl, an uptime check) redirect to it. Other unknown paths keep the JSON 404.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
const HTML = { accept: 'text/html,application/xhtml+xml' }

beforeAll(async () => {
  s = await startServer()
})
afterAll(() => s.destroy())

test('/admin is the page itself', async () => {
  const res = await fetch(`${s.base}/admin`, { headers: HTML, redirect: 'manual' })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toStartWith('text/html')
})

test('/admin/ (with or without a query) redirects to /admin with the admin headers', async () => {
  for (const path of ['/admin/', '/admin/?from=bookmark']) {
    const res = await fetch(`${s.base}${path}`, { redirect: 'manual' })
    expect({ path, status: res.status, location: res.headers.get('location'), cache: res.headers.get('cache-control') })
      .toEqual({ path, status: 302, location: '/admin', cache: 'no-store' })
  }
})

test('the root (GET and HEAD, any Accept, with a query) redirects to /admin; other methods and /healthz are unchanged', async () => {
  for (const [method, headers, path] of [
    ['GET', HTML, '/'], ['GET', {}, '/'], ['GET', { accept: '*/*' }, '/'], ['GET', { accept: 'application/json' }, '/?utm_source=x'],
    ['HEAD', {}, '/'], ['HEAD', HTML, '/'],
  ] as const) {
    const res = await fetch(`${s.base}${path}`, { method, headers, redirect: 'manual' })
    expect({ method, headers, status: res.status, location: res.headers.get('location'), cache: res.headers.get('cache-control'), body: await res.text() })
      .toEqual({ method, headers, status: 302, location: '/admin', cache: 'no-store', body: '' })
  }
  const post = await fetch(`${s.base}/`, { method: 'POST', redirect: 'manual' })
  expect({ status: post.status, body: await post.json() }).toEqual({ status: 404, body: { error: 'not found' } })
  const health = await fetch(`${s.base}/healthz`, { redirect: 'manual' })
  expect({ status: health.status, ok: (await health.json()).ok }).toEqual({ status: 200, ok: true })
})

test('other paths under /admin/ stay JSON 404s', async () => {
  for (const path of ['/admin/nope', '/admin/api/nope']) {
    const res = await fetch(`${s.base}${path}`, { headers: HTML, redirect: 'manual' })
    expect({ path, status: res.status, body: await res.json() }).toEqual({ path, status: 404, body: { error: 'not found' } })
  }
})
