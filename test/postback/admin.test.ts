import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { addClick, ownerCookie, postback, seedCatalog, type Catalog } from './seed'

let s: TestServer
let cookie: string
let a: Catalog
let b: Catalog
const clicks: Record<string, string> = {}

const api = (method: string, path: string, body?: unknown) => s.api(method, path, body, cookie)

beforeAll(async () => {
  s = await startServer()
  cookie = await ownerCookie(s)
  a = await seedCatalog(s, { payout: 1 })
  b = await seedCatalog(s, { payout: 2 })
  clicks.a1 = await addClick(s, a)
  clicks.a2 = await addClick(s, a)
  clicks.b1 = await addClick(s, b)
  // Five conversions with known dates (epoch seconds), in this order of receipt.
  await postback(s, `subid=${clicks.a1}&status=approved&payout=10&tid=A1&date=1704067200`) // 2024-01-01
  await postback(s, `subid=${clicks.a1}&status=pending&date=1706745600`) // 2024-02-01
  await postback(s, `subid=${clicks.a2}&status=chargeback&payout=-10&date=1709251200`) // 2024-03-01
  await postback(s, `subid=${clicks.b1}&status=approved&payout=5&date=1711929600`) // 2024-04-01
  await postback(s, `subid=${clicks.b1}&status=trial&payout=0&date=1714521600`) // 2024-05-01
})
afterAll(() => s.destroy())

const ids = (res: { body: { items: Array<{ transaction_id: string | null; type: string; date: string }> } }) =>
  res.body.items.map((c) => c.date.slice(0, 7))

describe('GET /admin/api/conversions', () => {
  test('lists newest first with every documented field', async () => {
    const res = await api('GET', '/admin/api/conversions')
    expect(res.status).toBe(200)
    expect(ids(res)).toEqual(['2024-05', '2024-04', '2024-03', '2024-02', '2024-01'])
    expect(res.body.next_cursor).toBeNull()
    const oldest = res.body.items[4]
    expect(oldest).toEqual({
      id: expect.any(Number), click_id: clicks.a1, revenue: 10, currency: 'USD', status: 'approved', type: 'sale',
      transaction_id: 'A1', email: null, date: '2024-01-01T00:00:00.000Z', campaign_id: a.campaignId,
      source_id: a.sourceId, landing_id: a.landingId, offer_id: a.offerId, created_at: expect.any(String),
      // The /postback's raw query, as received (the click timeline shows it too).
      postback_query: `subid=${clicks.a1}&status=approved&payout=10&tid=A1&date=1704067200`,
    })
    expect(new Date(oldest.created_at).toISOString()).toBe(oldest.created_at)
  })

  test('filters by click_id, campaign_id and type', async () => {
    expect(ids(await api('GET', `/admin/api/conversions?click_id=${clicks.a1.toUpperCase()}`))).toEqual(['2024-02', '2024-01'])
    expect(ids(await api('GET', `/admin/api/conversions?campaign_id=${b.campaignId}`))).toEqual(['2024-05', '2024-04'])
    expect(ids(await api('GET', '/admin/api/conversions?type=chargeback'))).toEqual(['2024-03'])
    expect(ids(await api('GET', `/admin/api/conversions?campaign_id=${a.campaignId}&type=sale`))).toEqual(['2024-01'])
  })

  test('filters by date: from inclusive, to exclusive, ISO or epoch', async () => {
    expect(ids(await api('GET', '/admin/api/conversions?from=2024-02-01&to=2024-04-01'))).toEqual(['2024-03', '2024-02'])
    expect(ids(await api('GET', '/admin/api/conversions?from=1709251200'))).toEqual(['2024-05', '2024-04', '2024-03'])
    expect(ids(await api('GET', '/admin/api/conversions?to=1706745600000'))).toEqual(['2024-01'])
  })

  test('pages with next_cursor until it is null', async () => {
    const p1 = await api('GET', '/admin/api/conversions?limit=2')
    expect(ids(p1)).toEqual(['2024-05', '2024-04'])
    const p2 = await api('GET', `/admin/api/conversions?limit=2&cursor=${p1.body.next_cursor}`)
    expect(ids(p2)).toEqual(['2024-03', '2024-02'])
    const p3 = await api('GET', `/admin/api/conversions?limit=2&cursor=${p2.body.next_cursor}`)
    expect(ids(p3)).toEqual(['2024-01'])
    expect(p3.body.next_cursor).toBeNull()
  })

  test.each([
    ['from=yesterday', 'from:'], ['to=2024-13-01', 'to:'], ['campaign_id=abc', 'campaign_id:'],
    ['limit=0', 'limit:'], ['limit=-1', 'limit:'], ['limit=ten', 'limit:'], ['cursor=x', 'cursor:'],
  ])('a bad filter %s answers 400 naming it', async (q, prefix) => {
    const res = await api('GET', `/admin/api/conversions?${q}`)
    expect(res.status).toBe(400)
    expect(res.body.error).toStartWith(prefix)
  })

  test('GET /:id returns one conversion; unknown or non-numeric ids are 404', async () => {
    const list = await api('GET', '/admin/api/conversions?limit=1')
    const one = await api('GET', `/admin/api/conversions/${list.body.items[0].id}`)
    expect(one.status).toBe(200)
    const item = list.body.items[0]
    // The list leaves the status history out; a conversion never updated has one entry, its current state.
    expect(one.body).toEqual({ ...item, status_history: [{ type: item.type, status: item.status, revenue: item.revenue, at: item.created_at, reversal_id: null }] })
    expect((await api('GET', '/admin/api/conversions/999999')).status).toBe(404)
    expect((await api('GET', '/admin/api/conversions/abc')).body).toEqual({ error: 'conversion not found' })
  })

  test('needs a session (401) and the conversions:read permission (403)', async () => {
    expect((await s.api('GET', '/admin/api/conversions', undefined, '')).status).toBe(401)
    const user = await s.ctx.users.create({ email: 'reports@example.com', password: 'reports-password-1', permissions: { reports: { read: true } } })
    const other = `svc_admin_session=${s.ctx.sessions.sign(user.id, user.sessionEpoch).value}`
    expect((await s.api('GET', '/admin/api/conversions', undefined, other)).status).toBe(403)
    expect((await s.api('GET', '/admin/api/conversion-types', undefined, other)).status).toBe(403)
    // Jobs belong to the section of their kind: a reports reader may list them, and sees none (no kind is in reports).
    const jobs = await s.api('GET', '/admin/api/jobs', undefined, other)
    expect({ status: jobs.status, items: jobs.body.items }).toEqual({ status: 200, items: [] })
    expect((await s.api('GET', '/admin/api/jobs?section=conversions', undefined, other)).status).toBe(403)
  })
})

describe('/admin/api/conversion-types', () => {
  test('lists the six built-in types with their flags', async () => {
    const res = await api('GET', '/admin/api/conversion-types')
    expect(res.status).toBe(200)
    const bySlug = Object.fromEntries(res.body.items.map((t: { slug: string }) => [t.slug, t]))
    expect(Object.keys(bySlug).sort()).toEqual(['chargeback', 'install', 'lead', 'reject', 'sale', 'trial'])
    expect(bySlug.chargeback).toMatchObject({ negative: true, send_postback: false, builtin: true })
    expect(bySlug.sale).toMatchObject({ include_in_conversions: true, include_in_revenue: true, send_postback: true, builtin: true })
  })

  test('creates a type (201), reads, patches and deletes it', async () => {
    const created = await api('POST', '/admin/api/conversion-types', { slug: 'upsell', name: 'Upsell', include_in_conversions: false, builtin: true })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      slug: 'upsell', name: 'Upsell', include_in_conversions: false, include_in_revenue: true, send_postback: false, negative: false, builtin: false,
    })
    expect((await api('GET', '/admin/api/conversion-types/upsell')).body.name).toBe('Upsell')
    const patched = await api('PATCH', '/admin/api/conversion-types/upsell', { send_postback: true, name: 'Up-sell' })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ name: 'Up-sell', send_postback: true, include_in_conversions: false })
    expect(await api('DELETE', '/admin/api/conversion-types/upsell')).toMatchObject({ status: 200, body: { ok: true } })
    expect((await api('GET', '/admin/api/conversion-types/upsell')).status).toBe(404)
  })

  test('creates of one slug at once: one 201, every other a 409 naming the slug (never a 500)', async () => {
    const all = await Promise.all(Array.from({ length: 8 }, () => api('POST', '/admin/api/conversion-types', { slug: 'raced', name: 'Raced' })))
    expect(all.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409])
    for (const r of all.filter((x) => x.status === 409)) expect(r.body.error).toBe('conversion type "raced" already exists')
    expect(await api('DELETE', '/admin/api/conversion-types/raced')).toMatchObject({ status: 200 })
  })

  test('a new type is usable as a postback status at once (cache reloaded)', async () => {
    await api('POST', '/admin/api/conversion-types', { slug: 'renewal', name: 'Renewal' })
    const id = await addClick(s, a)
    await postback(s, `subid=${id}&status=RENEWAL`)
    expect((await api('GET', `/admin/api/conversions?click_id=${id}`)).body.items[0].type).toBe('renewal')
  })

  test.each([
    ['a bad slug', { slug: 'Bad Slug', name: 'x' }, 400, 'slug:'],
    ['a slug starting with a digit', { slug: '1abc', name: 'x' }, 400, 'slug:'],
    ['a missing name', { slug: 'noname' }, 400, 'name:'],
    ['a duplicate slug', { slug: 'sale', name: 'Sale again' }, 409, ''],
    ['send_postback on a negative type', { slug: 'clawback', name: 'Clawback', negative: true, send_postback: true }, 400, 'send_postback:'],
    ['a non-boolean flag', { slug: 'flagged', name: 'x', negative: 'yes' }, 400, 'negative'],
  ])('POST with %s is refused', async (_, body, status, prefix) => {
    const res = await api('POST', '/admin/api/conversion-types', body)
    expect(res.status).toBe(status)
    expect(res.body.error).toStartWith(prefix)
  })

  test.each(['reject', 'chargeback'])('send_postback can never be switched on for %s', async (slug) => {
    const res = await api('PATCH', `/admin/api/conversion-types/${slug}`, { send_postback: true })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('send_postback: never for reject and chargeback (nor any negative type)')
  })

  test('built-in types can be edited but not deleted (409)', async () => {
    const res = await api('PATCH', '/admin/api/conversion-types/trial', { include_in_revenue: true, include_in_conversions: false })
    expect(res.body).toMatchObject({ include_in_revenue: true, include_in_conversions: false, builtin: true })
    await api('PATCH', '/admin/api/conversion-types/trial', { include_in_revenue: false, include_in_conversions: true })
    const del = await api('DELETE', '/admin/api/conversion-types/trial')
    expect(del.status).toBe(409)
  })

  test('a type used by conversions or by the status map cannot be deleted (409)', async () => {
    await api('POST', '/admin/api/conversion-types', { slug: 'used', name: 'Used' })
    const id = await addClick(s, a)
    await postback(s, `subid=${id}&status=used`)
    expect((await api('DELETE', '/admin/api/conversion-types/used')).status).toBe(409)
    await api('POST', '/admin/api/conversion-types', { slug: 'mapped', name: 'Mapped' })
    const map = (await api('GET', '/admin/api/status-map')).body
    await api('PUT', '/admin/api/status-map', { ...map, booked: 'mapped' })
    const del = await api('DELETE', '/admin/api/conversion-types/mapped')
    expect(del.status).toBe(409)
    expect(del.body.error).toContain('booked')
    await api('PUT', '/admin/api/status-map', map)
    expect((await api('DELETE', '/admin/api/conversion-types/mapped')).status).toBe(200)
  })

  test('unknown slugs are 404 and PATCH cannot change a slug', async () => {
    expect((await api('PATCH', '/admin/api/conversion-types/nope', { name: 'x' })).status).toBe(404)
    expect((await api('DELETE', '/admin/api/conversion-types/nope')).status).toBe(404)
    expect((await api('PATCH', '/admin/api/conversion-types/lead', { slug: 'leads' })).status).toBe(400)
  })
})

describe('/admin/api/status-map', () => {
  test('GET returns the default map', async () => {
    const res = await api('GET', '/admin/api/status-map')
    expect(res.body).toEqual({
      approved: 'sale', pending: 'lead', rejected: 'reject', declined: 'reject', chargeback: 'chargeback', refund: 'chargeback',
    })
  })

  test('PUT replaces the whole map with lower-cased keys and postbacks follow it', async () => {
    const before = (await api('GET', '/admin/api/status-map')).body
    const res = await api('PUT', '/admin/api/status-map', { ' Confirmed ': 'sale', HOLD: 'lead' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ confirmed: 'sale', hold: 'lead' })
    const id = await addClick(s, a)
    await postback(s, `subid=${id}&status=Hold`)
    await postback(s, `subid=${id}&status=pending`) // no longer mapped, not a slug → sale
    const types = (await api('GET', `/admin/api/conversions?click_id=${id}`)).body.items.map((c: { type: string }) => c.type)
    expect(types).toEqual(['sale', 'lead'])
    await api('PUT', '/admin/api/status-map', before)
  })

  test.each([
    ['an unknown type slug', { approved: 'nope' }],
    ['a non-string value', { approved: 1 }],
    ['an empty status', { '': 'sale' }],
    ['the same status twice in different case', { Approved: 'sale', approved: 'lead' }],
    ['an array', ['approved']],
  ])('PUT with %s answers 400 and keeps the map', async (_, body) => {
    const before = (await api('GET', '/admin/api/status-map')).body
    const res = await api('PUT', '/admin/api/status-map', body)
    expect(res.status).toBe(400)
    expect((await api('GET', '/admin/api/status-map')).body).toEqual(before)
  })
})
