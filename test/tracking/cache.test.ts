import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { get, startServer, type TestServer } from '../helpers/server'
import { seeder } from './seed'

let s: TestServer
let seed: ReturnType<typeof seeder>
beforeAll(async () => {
  s = await startServer()
  seed = seeder(s)
})
afterAll(() => s.destroy())

describe('routing cache', () => {
  test('serves from memory until a catalog signal, then reflects the change', async () => {
    const offer = seed.offer('https://offer.example/v1')
    const campaign = seed.campaign({ slug: 'cached', offers: [[offer, 1]] })
    expect((await get(`${s.base}/c/cached`)).headers.get('location')).toBe('https://offer.example/v1')

    // A write nobody announced is not seen: the hot path does not read the catalog tables.
    s.ctx.database.raw.prepare("UPDATE offers SET url = 'https://offer.example/v2' WHERE id = $id").run({ id: offer })
    expect((await get(`${s.base}/c/cached`)).headers.get('location')).toBe('https://offer.example/v1')

    s.ctx.events.committed('catalog.changed', { entity: 'campaign', id: 0, action: 'updated' })
    expect((await get(`${s.base}/c/cached`)).headers.get('location')).toBe('https://offer.example/v2')

    seed.exec('UPDATE campaigns SET active = 0 WHERE id = $id', { id: campaign })
    expect((await get(`${s.base}/c/cached`)).status).toBe(404)
    seed.exec('UPDATE campaigns SET active = 1 WHERE id = $id', { id: campaign })
    expect((await get(`${s.base}/c/cached`)).status).toBe(302)
  })

  test('a new campaign and a renamed slug are picked up after the signal', async () => {
    expect((await get(`${s.base}/c/later`)).status).toBe(404)
    const campaign = seed.campaign({ slug: 'later', offers: [[seed.offer('https://offer.example/later'), 1]] })
    expect((await get(`${s.base}/c/later`)).status).toBe(302)
    seed.exec("UPDATE campaigns SET slug = 'renamed' WHERE id = $id", { id: campaign })
    expect((await get(`${s.base}/c/later`)).status).toBe(404)
    expect((await get(`${s.base}/c/renamed`)).headers.get('location')).toBe('https://offer.example/later')
  })

  test('campaign edits through the admin API invalidate the cache too', async () => {
    const offer = seed.offer('https://offer.example/admin-a')
    const other = seed.offer('https://offer.example/admin-b')
    const campaign = seed.campaign({ slug: 'via-admin', offers: [[offer, 1]] })
    expect((await get(`${s.base}/c/via-admin`)).headers.get('location')).toBe('https://offer.example/admin-a')
    const res = await s.api('PATCH', `/admin/api/campaigns/${campaign}`, { offers: [{ offer_id: other, weight: 1 }] })
    expect(res.status).toBe(200)
    expect((await get(`${s.base}/c/via-admin`)).headers.get('location')).toBe('https://offer.example/admin-b')
  })
})
