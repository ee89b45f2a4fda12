import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { VERSION } from '../../src/version'

let s: TestServer
beforeAll(async () => { s = await startServer() })
afterAll(() => s.destroy())

describe('GET /healthz', () => {
  test('answers 200 {"ok":true,"version":…} once migrated', async () => {
    const res = await fetch(`${s.base}/healthz`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ok: true, version: VERSION })
  })

  test('an unknown path is a JSON 404', async () => {
    const res = await fetch(`${s.base}/no/such/path`)
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ error: 'not found' })
  })
})
