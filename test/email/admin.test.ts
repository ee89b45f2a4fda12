// Email lists and subscribers through the admin API (issue 9, first part), on either engine (npm test /
// npm run test:pg): the collection, idempotent enrolment that keeps the first consent, validation that
// names the field, filters and paging, the landing that blocks a list's deletion, and the event.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import type { DomainEvents } from '../../src/events'
import { testDb } from '../helpers/db'

let s: TestServer
const enrolled: Array<DomainEvents['email.subscriber.enrolled']> = []

beforeAll(async () => {
  s = await startServer()
  s.ctx.events.on('email.subscriber.enrolled', 'after-commit', 'test.enrolled', (e) => { enrolled.push(e) })
})
afterAll(() => s.destroy())

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

async function newList(name = 'Buyers'): Promise<number> {
  const res = await s.api('POST', '/admin/api/email-lists', { name })
  expect(res.status).toBe(201)
  return res.body.id
}

describe('/admin/api/email-lists', () => {
  test('create, read, rename, list in pages, delete; an unknown id is 404', async () => {
    const res = await s.api('POST', '/admin/api/email-lists', { name: '  Newsletter  ' })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({ id: res.body.id, name: 'Newsletter', active_subscribers: 0, created_at: expect.stringMatching(ISO), updated_at: res.body.created_at })
    const id = res.body.id
    expect((await s.api('GET', `/admin/api/email-lists/${id}`)).body).toEqual(res.body)
    const renamed = await s.api('PATCH', `/admin/api/email-lists/${id}`, { name: 'Weekly' })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toMatchObject({ id, name: 'Weekly' })
    const other = await newList('Second')
    const page1 = await s.api('GET', '/admin/api/email-lists?limit=1')
    expect(page1.body.items).toHaveLength(1)
    const page2 = await s.api('GET', `/admin/api/email-lists?limit=1&cursor=${page1.body.next_cursor}`)
    expect(page2.body.items[0].id).toBeGreaterThan(page1.body.items[0].id)
    expect((await s.api('DELETE', `/admin/api/email-lists/${other}`)).body).toEqual({ ok: true })
    expect(await s.api('GET', `/admin/api/email-lists/${other}`)).toMatchObject({ status: 404, body: { error: 'email list not found' } })
    expect(await s.api('PATCH', '/admin/api/email-lists/999999', { name: 'x' })).toMatchObject({ status: 404, body: { error: 'email list not found' } })
    expect(await s.api('DELETE', '/admin/api/email-lists/999999')).toMatchObject({ status: 404, body: { error: 'email list not found' } })
    expect(await s.api('GET', '/admin/api/email-lists/abc')).toMatchObject({ status: 404, body: { error: 'email list not found' } })
  })

  test('a name is required: 400 naming the field', async () => {
    expect(await s.api('POST', '/admin/api/email-lists', { name: '   ' })).toMatchObject({ status: 400, body: { error: 'name: must be a non-empty string' } })
    expect((await s.api('POST', '/admin/api/email-lists', {})).status).toBe(400)
    expect(await s.api('POST', '/admin/api/email-lists', { name: 'a\u0000b' })).toMatchObject({ status: 400, body: { error: 'name: must not contain NUL characters' } })
  })

  test('a list a landing enrols into cannot be deleted (409 naming the landing); its subscribers go with it otherwise', async () => {
    const list = await newList('Leads')
    const landing = await s.api('POST', '/admin/api/landings', { name: 'LP', slug: 'lp-with-list', html: '<p>x</p>', email_list_id: list })
    expect(landing.status).toBe(201)
    await s.api('POST', `/admin/api/email-lists/${list}/subscribers`, { email: 'lead@example.com' })
    expect(await s.api('DELETE', `/admin/api/email-lists/${list}`))
      .toMatchObject({ status: 409, body: { error: `email list is used by landing "lp-with-list" (id ${landing.body.id})` } })
    expect((await s.api('PATCH', `/admin/api/landings/${landing.body.id}`, { email_list_id: null })).status).toBe(200)
    expect((await s.api('DELETE', `/admin/api/email-lists/${list}`)).status).toBe(200)
    expect(await s.api('GET', `/admin/api/email-lists/${list}/subscribers`)).toMatchObject({ status: 404, body: { error: 'email list not found' } })
  })
})

describe('/admin/api/email-lists/:id/subscribers', () => {
  let list: number
  beforeAll(async () => {
    list = await newList('Subscribers')
  })
  const path = () => `/admin/api/email-lists/${list}/subscribers`

  test('POST enrols a normalised address (201); the same address again is 200 with the first consent kept', async () => {
    enrolled.length = 0
    const before = Date.now()
    const res = await s.api('POST', path(), { email: '  Ann.Lee+promo@Example.COM ', name: 'Ann', fields: { city: 'Oslo' }, consent_ip: '203.0.113.7' })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: res.body.id, list_id: list, email: 'ann.lee+promo@example.com', name: 'Ann', fields: { city: 'Oslo' }, source: 'manual',
      status: 'active', consent_at: expect.stringMatching(ISO), consent_ip: '203.0.113.7', created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    })
    expect(Date.parse(res.body.consent_at)).toBeGreaterThanOrEqual(before - 1)
    const again = await s.api('POST', path(), { email: 'ann.lee+promo@example.com', name: 'Someone else', consent_at: '2020-01-01T00:00:00Z' })
    expect(again.status).toBe(200)
    expect(again.body).toEqual(res.body)
    expect(enrolled).toEqual([{ listId: list, subscriberId: res.body.id, email: 'ann.lee+promo@example.com', source: 'manual' }])
    expect((await s.api('GET', `/admin/api/email-lists/${list}`)).body.active_subscribers).toBe(1)
    // Another list: another subscriber row for the same address.
    const other = await newList('Other')
    const there = await s.api('POST', `/admin/api/email-lists/${other}/subscribers`, { email: 'ANN.LEE+promo@example.com' })
    expect(there.status).toBe(201)
    expect(there.body.id).not.toBe(res.body.id)
  })

  test('consent_at given in the past is kept; in the future it is refused', async () => {
    const res = await s.api('POST', path(), { email: 'old@example.com', consent_at: '2024-05-01T10:00:00Z' })
    expect(res.status).toBe(201)
    expect(res.body.consent_at).toBe('2024-05-01T10:00:00.000Z')
    expect(await s.api('POST', path(), { email: 'future@example.com', consent_at: '2999-01-01' }))
      .toMatchObject({ status: 400, body: { error: 'consent_at: must not be in the future' } })
    expect(await s.api('POST', path(), { email: 'future@example.com', consent_at: 'yesterday' }))
      .toMatchObject({ status: 400, body: { error: 'consent_at: must be an ISO 8601 date or epoch seconds/milliseconds' } })
  })

  test('bad input is 400 naming the field, and nothing is stored', async () => {
    const cases: Array<[unknown, string]> = [
      [{ email: 'not-an-address' }, 'email: not a valid email address'],
      [{ email: 'a@b' }, 'email: not a valid email address'],
      [{ email: 'two@@example.com' }, 'email: not a valid email address'],
      [{ email: 'x@example.com\r\nBcc: victim@example.com' }, 'email: not a valid email address'],
      [{ email: 'ok@example.com', name: 'Ann\r\nBcc: victim@example.com' }, 'name: must not contain line breaks or control characters'],
      [{ email: 'ok@example.com', fields: { 'Bad Name': 'x' } }, 'fields.Bad Name: names are 1-40 characters a-z, 0-9 and _'],
      [{ email: 'ok@example.com', fields: { city: 'Oslo\nBcc: x' } }, 'fields.city: must not contain line breaks or control characters'],
      [{ email: 'ok@example.com', fields: { city: 'x'.repeat(1001) } }, 'fields.city: must be at most 1000 characters'],
      [{ email: 'ok@example.com', consent_ip: 'not-an-ip' }, 'consent_ip: not an IP address'],
    ]
    for (const [body, error] of cases) {
      expect({ body, res: (await s.api('POST', path(), body)).body }).toEqual({ body, res: { error } })
    }
    expect((await s.api('POST', path(), { email: 'ok@example.com', fields: { n: 5 } })).status).toBe(400)
    expect((await s.api('POST', path(), {})).status).toBe(400)
    expect((await s.api('GET', `${path()}?email=ok@example.com`)).body.items).toEqual([])
    expect(await s.api('POST', '/admin/api/email-lists/999999/subscribers', { email: 'ok@example.com' }))
      .toMatchObject({ status: 404, body: { error: 'email list not found' } })
  })

  test('GET filters by status and address, pages by cursor; one subscriber; DELETE removes it', async () => {
    const l = await newList('Paging')
    const p = `/admin/api/email-lists/${l}/subscribers`
    const ids: number[] = []
    for (const e of ['a@example.com', 'b@example.com', 'c@example.com']) ids.push((await s.api('POST', p, { email: e })).body.id)
    const all = await s.api('GET', p)
    expect(all.body.items.map((x: { id: number }) => x.id)).toEqual(ids)
    expect(all.body.next_cursor).toBeNull()
    const first = await s.api('GET', `${p}?limit=2`)
    expect(first.body.items.map((x: { id: number }) => x.id)).toEqual(ids.slice(0, 2))
    const rest = await s.api('GET', `${p}?limit=2&cursor=${first.body.next_cursor}`)
    expect(rest.body.items.map((x: { id: number }) => x.id)).toEqual([ids[2]])
    expect((await s.api('GET', `${p}?email=B@Example.com`)).body.items.map((x: { id: number }) => x.id)).toEqual([ids[1]])
    expect((await s.api('GET', `${p}?status=active`)).body.items).toHaveLength(3)
    expect((await s.api('GET', `${p}?status=bounced`)).body.items).toEqual([])
    expect(await s.api('GET', `${p}?status=gone`)).toMatchObject({ status: 400, body: { error: 'status: must be one of active, unsubscribed, bounced, complained' } })
    expect(await s.api('GET', `${p}?email=nope`)).toMatchObject({ status: 400, body: { error: 'email: not a valid email address' } })

    expect((await s.api('GET', `${p}/${ids[0]}`)).body).toMatchObject({ id: ids[0], email: 'a@example.com', list_id: l })
    // A subscriber of another list is not found through this one.
    expect(await s.api('GET', `/admin/api/email-lists/${list}/subscribers/${ids[0]}`)).toMatchObject({ status: 404, body: { error: 'subscriber not found' } })
    expect(await s.api('DELETE', `/admin/api/email-lists/${list}/subscribers/${ids[0]}`)).toMatchObject({ status: 404, body: { error: 'subscriber not found' } })
    expect((await s.api('DELETE', `${p}/${ids[0]}`)).body).toEqual({ ok: true })
    expect(await s.api('DELETE', `${p}/${ids[0]}`)).toMatchObject({ status: 404, body: { error: 'subscriber not found' } })
    expect(await s.api('GET', `${p}/x`)).toMatchObject({ status: 404, body: { error: 'subscriber not found' } })
    expect((await s.api('GET', `/admin/api/email-lists/${l}`)).body.active_subscribers).toBe(2)
  })
})

describe('GET /admin/api/email-lists/:id/subscribers/export', () => {
  test('streams every subscriber, oldest first, with formula cells neutralised; filters by status; unknown list 404', async () => {
    const l = await newList('Export')
    const p = `/admin/api/email-lists/${l}/subscribers`
    await s.api('POST', p, { email: 'a@example.com', name: '=HYPERLINK("https://evil.example")', fields: { city: 'Oslo, "N"' }, consent_ip: '203.0.113.9', consent_at: '2024-01-02T03:04:05Z' })
    await s.api('POST', p, { email: 'b@example.com' })
    // Enough rows for several pages of the export (1,000 per read): written straight into the table.
    await testDb(s).run(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2050) " +
        "INSERT INTO email_subscribers (list_id, email, name, fields, source, status, consent_at, consent_ip, created_at, updated_at) " +
        "SELECT $list, 'bulk' || i || '@example.com', NULL, '{}', 'import', CASE WHEN i % 2 = 0 THEN 'unsubscribed' ELSE 'active' END, 0, NULL, 0, 0 FROM n",
      { list: l },
    )
    const res = await fetch(`${s.base}${p}/export`, { headers: { cookie: await s.login() } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="email-list-${l}-subscribers.csv"`)
    const lines = (await res.text()).split('\r\n')
    expect(lines[0]).toBe('id,email,name,status,source,consent_at,consent_ip,created_at,fields')
    expect(lines[1]).toMatch(/^\d+,a@example\.com,"'=HYPERLINK\(""https:\/\/evil\.example""\)",active,manual,2024-01-02T03:04:05\.000Z,203\.0\.113\.9,[^,]+,"\{""city"":""Oslo, \\""N\\""""\}"$/)
    expect(lines[2]).toMatch(/^\d+,b@example\.com,,active,manual,/)
    expect(lines.length).toBe(1 + 2 + 2050 + 1) // header, rows, the empty string after the last CRLF
    expect(lines.at(-2)).toMatch(/^\d+,bulk2050@example\.com,,unsubscribed,import,/)
    const ids = lines.slice(1, -1).map((x) => Number(x.split(',')[0]))
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    const active = await fetch(`${s.base}${p}/export?status=active`, { headers: { cookie: await s.login() } })
    expect((await active.text()).split('\r\n').length).toBe(1 + 2 + 1025 + 1)
    expect(await s.api('GET', '/admin/api/email-lists/999999/subscribers/export')).toMatchObject({ status: 404, body: { error: 'email list not found' } })
    expect((await s.api('GET', `${p}/export?status=nope`)).status).toBe(400)
  })
})

describe('POST /admin/api/email-lists/:id/subscribers/import', () => {
  const upload = async (list: number, csv: string, type = 'text/csv') =>
    fetch(`${s.base}/admin/api/email-lists/${list}/subscribers/import`, { method: 'POST', headers: { cookie: await s.login(), 'content-type': type }, body: csv })
      .then(async (r) => ({ status: r.status, body: await r.json() as any }))

  test('takes the valid rows, reports each skipped one with its reason, keeps existing subscribers as they were', async () => {
    const l = await newList('Import')
    await s.api('POST', `/admin/api/email-lists/${l}/subscribers`, { email: 'old@example.com', name: 'First name kept' })
    const csv = '\uFEFFEmail,Name,City,Consent At,consent_ip,Bad Column!\r\n' +
      'ann@example.com,Ann,Oslo,2024-03-01T10:00:00Z,203.0.113.1,x\r\n' +
      '"Bob@Example.com","Lee, Bob",,,,\n' +
      'not-an-address,X,,,,\n' +
      '\n' +
      'ann@example.com,Ann again,,,,\n' +
      'old@example.com,Other name,,,,\n' +
      'future@example.com,,,2999-01-01,,\n' +
      'ip@example.com,,,,999.1.1.1,\n' +
      'crlf@example.com,"two\r\nlines",,,,\n'
    const res = await upload(l, csv)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      list_id: l, rows: 8, created: 2, already_subscribed: 1, skipped: 5, ignored_columns: ['Bad Column!'],
      errors: [
        { row: 4, reason: 'email: not a valid email address' },
        { row: 6, reason: 'duplicate of row 2' },
        { row: 8, reason: 'consent_at: not a date in the past' },
        { row: 9, reason: 'consent_ip: not an IP address' },
        { row: 10, reason: 'name: must not contain line breaks or control characters' },
      ],
    })
    const rows = (await s.api('GET', `/admin/api/email-lists/${l}/subscribers`)).body.items
    expect(rows.map((r: any) => [r.email, r.name, r.source, r.fields])).toEqual([
      ['old@example.com', 'First name kept', 'manual', {}],
      ['ann@example.com', 'Ann', 'import', { city: 'Oslo' }],
      ['bob@example.com', 'Lee, Bob', 'import', {}],
    ])
    expect(rows[1]).toMatchObject({ consent_at: '2024-03-01T10:00:00.000Z', consent_ip: '203.0.113.1' })
  })

  test('refuses what is not a CSV import: no email column, broken quoting, JSON, an unknown list, over 50,000 rows', async () => {
    const l = await newList('Refused')
    expect(await upload(l, 'name,city\nAnn,Oslo\n')).toEqual({ status: 400, body: { error: 'csv: no email column in the header row' } })
    expect(await upload(l, 'email\n"ann@example.com\n')).toEqual({ status: 400, body: { error: 'csv: line 2: a quote is never closed' } })
    expect(await upload(l, '')).toMatchObject({ status: 400 })
    expect(await upload(l, '{"csv":"email"}', 'application/json')).toEqual({ status: 400, body: { error: 'request body must be a CSV file (content-type: text/csv)' } })
    expect(await upload(999999, 'email\na@example.com\n')).toEqual({ status: 404, body: { error: 'email list not found' } })
    const tooMany = 'email\n' + Array.from({ length: 50_001 }, (_, i) => `u${i}@example.com`).join('\n')
    expect(await upload(l, tooMany)).toEqual({ status: 400, body: { error: 'csv: at most 50000 rows per import (got 50001)' } })
    expect((await s.api('GET', `/admin/api/email-lists/${l}/subscribers`)).body.items).toEqual([])
  })

  test('50,000 rows in one request (over the usual 2 MB body limit) are all taken, in one transaction', async () => {
    const l = await newList('Big')
    const csv = 'email,name,plan\n' + Array.from({ length: 50_000 }, (_, i) => `member${i}@example.com,Member Number ${i},gold`).join('\n') + '\n'
    expect(csv.length).toBeGreaterThan(2.2 * 1024 * 1024)
    const started = Date.now()
    const res = await upload(l, csv)
    expect(res).toMatchObject({ status: 200, body: { rows: 50_000, created: 50_000, already_subscribed: 0, skipped: 0, errors: [] } })
    expect((await s.api('GET', `/admin/api/email-lists/${l}`)).body.active_subscribers).toBe(50_000)
    // Again: every row is already there.
    expect((await upload(l, csv)).body).toMatchObject({ created: 0, already_subscribed: 50_000 })
    console.log(`import of 50,000 rows: ${Date.now() - started} ms for both uploads`)
  }, 60_000)
})
