// How a person reaches the dashboard: /admin is the page; /admin/ with a slash and, for a browser, the bare
// root redirect to it. Programs asking for / keep the JSON 404 of unknown paths.
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

test('the root sends a browser to /admin; a program gets the JSON 404', async () => {
  const page = await fetch(`${s.base}/`, { headers: HTML, redirect: 'manual' })
  expect({ status: page.status, location: page.headers.get('location') }).toEqual({ status: 302, location: '/admin' })
  const api = await fetch(`${s.base}/`, { redirect: 'manual' })
  expect({ status: api.status, body: await api.json() }).toEqual({ status: 404, body: { error: 'not found' } })
})

test('other paths under /admin/ stay JSON 404s', async () => {
  for (const path of ['/admin/nope', '/admin/api/nope']) {
    const res = await fetch(`${s.base}${path}`, { headers: HTML, redirect: 'manual' })
    expect({ path, status: res.status, body: await res.json() }).toEqual({ path, status: 404, body: { error: 'not found' } })
  }
})
