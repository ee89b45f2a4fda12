import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { get, startServer, type TestServer } from '../helpers/server'
import { seeder, SERVER_TIMEOUT_MS } from './seed'

let s: TestServer
let seed: ReturnType<typeof seeder>
beforeAll(async () => {
  s = await startServer()
  seed = seeder(s)
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

describe('routing cache', () => {
  test('serves from memory until a catalog signal, then reflects the change', async () => {
    const offer = await seed.offer('https://offer.example/v1')
    const campaign = await seed.campaign({ slug: 'cached', offers: [[offer, 1]] })
    expect((await get(`${s.base}/c/cached`)).headers.get('location')).toBe('https://offer.example/v1')

    // A write nobody announced is not seen: the hot path does not read the catalog tables.
    await testDb(s).run("UPDATE offers SET url = 'https://offer.example/v2' WHERE id = $id", { id: offer })
    expect((await get(`${s.base}/c/cached`)).headers.get('location')).toBe('https://offer.example/v1')

    s.ctx.events.committed('catalog.changed', { entity: 'campaign', id: 0, action: 'updated' })
    expect((await get(`${s.base}/c/cached`)).headers.get('location')).toBe('https://offer.example/v2')

    await seed.exec('UPDATE campaigns SET active = 0 WHERE id = $id', { id: campaign })
    expect((await get(`${s.base}/c/cached`)).status).toBe(404)
    await seed.exec('UPDATE campaigns SET active = 1 WHERE id = $id', { id: campaign })
    expect((await get(`${s.base}/c/cached`)).status).toBe(302)
  })

  test('a new campaign and a renamed slug are picked up after the signal', async () => {
    expect((await get(`${s.base}/c/later`)).status).toBe(404)
    const campaign = await seed.campaign({ slug: 'later', offers: [[await seed.offer('https://offer.example/later'), 1]] })
    expect((await get(`${s.base}/c/later`)).status).toBe(302)
    await seed.exec("UPDATE campaigns SET slug = 'renamed' WHERE id = $id", { id: campaign })
    expect((await get(`${s.base}/c/later`)).status).toBe(404)
    expect((await get(`${s.base}/c/renamed`)).headers.get('location')).toBe('https://offer.example/later')
  })

  test('campaign edits through the admin API invalidate the cache too', async () => {
    const offer = await seed.offer('https://offer.example/admin-a')
    const other = await seed.offer('https://offer.example/admin-b')
    const campaign = await seed.campaign({ slug: 'via-admin', offers: [[offer, 1]] })
    expect((await get(`${s.base}/c/via-admin`)).headers.get('location')).toBe('https://offer.example/admin-a')
    const res = await s.api('PATCH', `/admin/api/campaigns/${campaign}`, { offers: [{ offer_id: other, weight: 1 }] })
    expect(res.status).toBe(200)
    expect((await get(`${s.base}/c/via-admin`)).headers.get('location')).toBe('https://offer.example/admin-b')
  })
})
