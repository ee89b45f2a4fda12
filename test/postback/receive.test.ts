import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { randomUUID } from 'node:crypto'
import { testDb } from '../helpers/db'
import { startServer, type TestServer } from '../helpers/server'
import { DEFAULT_ALIASES } from '../../src/postback/aliases'
import { readPayout } from '../../src/postback/payout'
import { addClick, conversionsOf, countRows, lastError, ownerCookie, postback, seedCatalog, type Catalog } from './seed'

let s: TestServer
let cat: Catalog
let cookie: string

beforeAll(async () => {
  s = await startServer()
  cat = await seedCatalog(s, { payout: 4.25, currency: 'EUR' })
  cookie = await ownerCookie(s)
})
afterAll(() => s.destroy())
beforeEach(() => s.ctx.settings.update({ postback_dedup: false }))

async function expectOk(res: Response) {
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
  expect(await res.text()).toBe('OK')
}

/** Sends the postback and returns the conversions of `clickId` afterwards. */
async function send(query: string, clickId: string) {
  await expectOk(await postback(s, query))
  return await conversionsOf(s, clickId)
}

describe('GET /postback response', () => {
  test('a matched click records one attributed conversion and the answer is exactly OK as text/plain', async () => {
    const id = await addClick(s, cat)
    const rows = await send(`subid=${id}&status=approved&payout=12.5&tid=T-1&email=buyer@example.com`, id)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      click_id: id, campaign_id: cat.campaignId, source_id: cat.sourceId, landing_id: cat.landingId, offer_id: cat.offerId,
      type: 'sale', status: 'approved', revenue: 12.5, currency: 'EUR', transaction_id: 'T-1', email: 'buyer@example.com',
    })
  })

  test.each([
    ['no query at all', ''],
    ['an unknown UUID', `subid=${randomUUID()}`],
    ['a non-UUID click id', 'subid=hello'],
    ['broken percent-encoding', 'subid=%zz%E0%A4&payout=%'],
    ['only separators', '&&&==&='],
    ['garbage payout without click', 'payout=abc&status=%00'],
  ])('%s still answers 200 OK and records no conversion', async (_, query) => {
    const before = await countRows(s, 'conversions')
    await expectOk(await postback(s, query))
    expect(await countRows(s, 'conversions')).toBe(before)
  })

  test('a 10 KB query string answers 200 OK, records the conversion and crops the stored error query to 4 KB', async () => {
    const id = await addClick(s, cat)
    const filler = 'x'.repeat(10 * 1024)
    const rows = await send(`subid=${id}&junk=${filler}`, id)
    expect(rows).toHaveLength(1)
    await expectOk(await postback(s, `subid=${randomUUID()}&junk=${filler}`))
    const err = (await lastError(s))!
    expect(err.reason).toBe('unknown_click')
    expect(err.query.length).toBe(4096)
  })

  test('an upper-case click id matches the click', async () => {
    const id = await addClick(s, cat)
    expect(await send(`subid=${id.toUpperCase()}`, id)).toHaveLength(1)
  })
})

describe('parameter aliases (spec §4 table, priority order)', () => {
  test.each([...DEFAULT_ALIASES.subid, 'cid'])('the click id is accepted as %s', async (alias) => {
    const id = await addClick(s, cat)
    expect(await send(`${alias}=${id}`, id)).toHaveLength(1)
  })

  test.each(DEFAULT_ALIASES.status)('the status is accepted as %s', async (alias) => {
    const id = await addClick(s, cat)
    const [row] = await send(`subid=${id}&${alias}=pending`, id)
    expect(row).toMatchObject({ status: 'pending', type: 'lead' })
  })

  test.each(DEFAULT_ALIASES.payout)('the payout is accepted as %s', async (alias) => {
    const id = await addClick(s, cat)
    const [row] = await send(`subid=${id}&${alias}=7.75`, id)
    expect(row!.revenue).toBe(7.75)
  })

  test.each(DEFAULT_ALIASES.tid)('the transaction id is accepted as %s', async (alias) => {
    const id = await addClick(s, cat)
    const [row] = await send(`subid=${id}&${alias}=TX-${alias}`, id)
    expect(row!.transaction_id).toBe(`TX-${alias}`)
  })

  test.each(DEFAULT_ALIASES.date)('the date is accepted as %s', async (alias) => {
    const id = await addClick(s, cat)
    const [row] = await send(`subid=${id}&${alias}=2024-03-04T05:06:07Z`, id)
    expect(row!.date).toBe(Date.UTC(2024, 2, 4, 5, 6, 7))
  })

  test('the email is accepted as email and stored trimmed', async () => {
    const id = await addClick(s, cat)
    const [row] = await send(`subid=${id}&email=%20b@example.com%20`, id)
    expect(row!.email).toBe('b@example.com')
  })

  test('with two click id aliases present the higher-priority one wins, whatever their order in the URL', async () => {
    const a = await addClick(s, cat)
    const b = await addClick(s, cat)
    await expectOk(await postback(s, `click_id=${b}&subid=${a}`))
    expect(await conversionsOf(s, a)).toHaveLength(1)
    expect(await conversionsOf(s, b)).toHaveLength(0)
    await expectOk(await postback(s, `sub2=${a}&sub1=${b}`))
    expect(await conversionsOf(s, b)).toHaveLength(1)
    expect(await conversionsOf(s, a)).toHaveLength(1)
  })

  test('with two aliases of status, payout, tid and date present the higher-priority one wins', async () => {
    const id = await addClick(s, cat)
    const [row] = await send(
      `subid=${id}&type=chargeback&status=pending&value=9&payout=1&receipt=R&tid=T&time=2020-01-01T00:00:00Z&date=2021-01-01T00:00:00Z`,
      id,
    )
    expect(row).toMatchObject({ type: 'lead', status: 'pending', revenue: 1, transaction_id: 'T', date: Date.UTC(2021, 0, 1) })
  })

  test('an alias present with an empty value does not win: the next alias is used', async () => {
    const id = await addClick(s, cat)
    const [row] = await send(`subid=&click_id=${id}&payout=&revenue=3`, id)
    expect(row!.revenue).toBe(3)
  })

  test('cid is the last resort: any listed alias beats it', async () => {
    const a = await addClick(s, cat)
    const b = await addClick(s, cat)
    await expectOk(await postback(s, `cid=${b}&sub2=${a}`))
    expect(await conversionsOf(s, a)).toHaveLength(1)
    expect(await conversionsOf(s, b)).toHaveLength(0)
  })

  test('alias names are case-sensitive', async () => {
    const id = await addClick(s, cat)
    await expectOk(await postback(s, `SUBID=${id}&trackid=${id}`))
    expect(await conversionsOf(s, id)).toHaveLength(0)
    expect((await lastError(s))!.reason).toBe('missing_click_id')
    expect(await send(`trackID=${id}`, id)).toHaveLength(1)
  })

  test('with a repeated parameter the first occurrence wins', async () => {
    const a = await addClick(s, cat)
    const b = await addClick(s, cat)
    await expectOk(await postback(s, `subid=${a}&subid=${b}&payout=1&payout=2&status=pending&status=approved`))
    expect(await conversionsOf(s, b)).toHaveLength(0)
    expect((await conversionsOf(s, a))[0]).toMatchObject({ revenue: 1, type: 'lead' })
  })
})

describe('conversion type from the status', () => {
  test.each([
    ['approved', 'sale'], ['pending', 'lead'], ['rejected', 'reject'], ['declined', 'reject'],
    ['chargeback', 'chargeback'], ['refund', 'chargeback'],
  ])('default status %s maps to type %s', async (status, type) => {
    const id = await addClick(s, cat)
    const [row] = await send(`subid=${id}&status=${status}`, id)
    expect(row).toMatchObject({ type, status })
  })

  test('the status is matched trimmed and case-insensitively but stored as received', async () => {
    const id = await addClick(s, cat)
    const [row] = await send(`subid=${id}&status=%20Pending%20`, id)
    expect(row).toMatchObject({ type: 'lead', status: ' Pending ' })
  })

  test.each(['install', 'trial', 'lead'])('a status equal to the type slug %s resolves to that type', async (slug) => {
    const id = await addClick(s, cat)
    const [row] = await send(`subid=${id}&status=${slug}`, id)
    expect(row!.type).toBe(slug)
  })

  test('an unknown status is a sale and is stored as received (cropped to 64 characters)', async () => {
    const id = await addClick(s, cat)
    const long = 'Weird'.repeat(20)
    const [row] = await send(`subid=${id}&status=${long}`, id)
    expect(row).toMatchObject({ type: 'sale', status: long.slice(0, 64) })
  })

  test('an absent status is a sale with a null status', async () => {
    const id = await addClick(s, cat)
    const [row] = await send(`subid=${id}`, id)
    expect(row).toMatchObject({ type: 'sale', status: null })
  })
})

describe('payout', () => {
  test.each([
    ['12', 12], ['12.50', 12.5], ['-3.5', -3.5], ['%2B4', 4], ['.5', 0.5], ['5.', 5], ['1e3', 1000],
    ['1.5E-2', 0.015], ['%207%20', 7], ['0', 0], ['-0', 0], ['1000000000000', 1e12], ['-1000000000000', -1e12],
    // Issue 14: the forms advertisers write (these recorded nothing before).
    ['12%2C50', 12.5], ['%245', 5], ['5%20USD', 5], ['%205%20', 5], ['%E2%82%AC12%2C50', 12.5], ['12%2C50%20%E2%82%AC', 12.5],
    ['-%245', -5], ['%24-5', -5], ['USD%205', 5], ['5usd', 5], ['US%245', 5], ['R%24%2010%2C00', 10], ['%C2%A5500', 500],
    ['1%2C234.56', 1234.56], ['1.234%2C56', 1234.56], ['1%2C234%2C567', 1234567], ['1.234.567', 1234567],
    ['1%2C234%2C567.89', 1234567.89], ['1%20234%2C56', 1234.56], ['1%C2%A0234%2C50', 1234.5], ["1'234.50", 1234.5],
    ['1.234', 1.234], ['0%2C125', 0.125], ['%2C5', 0.5], ['1234%2C5678', 1234.5678], ['999%2C999%2C999%2C999', 999999999999],
  ])('%s is stored literally as %d', async (raw, value) => {
    const id = await addClick(s, cat)
    const [row] = await send(`subid=${id}&payout=${raw}`, id)
    expect(row!.revenue).toBe(value)
    expect(row!.currency).toBe('EUR')
  })

  test('an absent payout takes the offer payout of the click', async () => {
    const id = await addClick(s, cat)
    const [row] = await send(`subid=${id}&status=approved`, id)
    expect(row).toMatchObject({ revenue: 4.25, currency: 'EUR' })
  })

  test('an absent payout on a click without an offer is 0 with no currency', async () => {
    const id = await addClick(s, cat, { offerId: null })
    const [row] = await send(`subid=${id}`, id)
    expect(row).toMatchObject({ revenue: 0, currency: null, offer_id: null })
  })

  // Issue 14 changed this: an unreadable payout used to record nothing (reason invalid_payout).
  test.each(['abc', '1e13', '-1e13', 'Infinity', 'NaN', '0x10', '1.2.3', '1,23.4', '1%2C234%2C56', '--5', '%245%20USD%20EUR', '5%20ABC', '5-', 'x'.repeat(65)])(
    "an unreadable payout %s records the offer's payout and a payout_unreadable row carrying the conversion id",
    async (raw) => {
      const id = await addClick(s, cat)
      const rows = await send(`subid=${id}&payout=${raw}`, id)
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({ revenue: 4.25, currency: 'EUR' })
      expect(await lastError(s)).toMatchObject({
        reason: 'payout_unreadable', click_id: id, query: `subid=${id}&payout=${raw}`, ip: '127.0.0.1', conversion_id: rows[0]!.id,
      })
    },
  )

  test.each([['1%2C234', '1,234'], ['12%2C345', '12,345'], ['-1%2C000', '-1,000']])(
    "%s is ambiguous (thousands or decimal comma): the offer's payout is recorded with a payout_unreadable row",
    async (raw) => {
      const id = await addClick(s, cat)
      const [row] = await send(`subid=${id}&payout=${raw}`, id)
      expect(row!.revenue).toBe(4.25)
      expect(await lastError(s)).toMatchObject({ reason: 'payout_unreadable', click_id: id, conversion_id: row!.id })
    },
  )

  test("an unreadable payout on a click without an offer records 0 and the warning row", async () => {
    const id = await addClick(s, cat, { offerId: null })
    const [row] = await send(`subid=${id}&payout=abc`, id)
    expect(row).toMatchObject({ revenue: 0, currency: null })
    expect(await lastError(s)).toMatchObject({ reason: 'payout_unreadable', conversion_id: row!.id })
  })

  test('crafted 64-character payouts are refused quickly (a single grammar regex once took 170 ms for one)', async () => {
    const crafted = ['-' + ' '.repeat(62) + '-', '1' + ' '.repeat(62) + 'x', '1,'.repeat(32), '$' + '1 '.repeat(31) + 'x']
    const started = performance.now()
    for (let i = 0; i < 100; i++) for (const v of crafted) expect(readPayout(v)).toBeNull()
    expect(performance.now() - started).toBeLessThan(500)
    const id = await addClick(s, cat)
    const [row] = await send(`subid=${id}&payout=${encodeURIComponent(crafted[0]!)}`, id)
    expect(row!.revenue).toBe(4.25)
    expect(await lastError(s)).toMatchObject({ reason: 'payout_unreadable', conversion_id: row!.id })
  })

  test('a blank payout is an absent one: the offer payout, no warning row', async () => {
    const id = await addClick(s, cat)
    const before = await countRows(s, 'postback_errors')
    const [row] = await send(`subid=${id}&payout=%20%20`, id)
    expect(row!.revenue).toBe(4.25)
    expect(await countRows(s, 'postback_errors')).toBe(before)
  })

  test('a currency code other than the offer\'s stores the amount literally (no conversion) with a payout_currency_mismatch row', async () => {
    const id = await addClick(s, cat)
    const [row] = await send(`subid=${id}&payout=5%20USD`, id)
    expect(row).toMatchObject({ revenue: 5, currency: 'EUR' })
    expect(await lastError(s)).toMatchObject({ reason: 'payout_currency_mismatch', click_id: id, conversion_id: row!.id })
  })

  test.each([['5%20EUR'], ['5%20eur'], ['%E2%82%AC5'], ['%245'], ['5']])(
    '%s names the offer\'s currency or none: no warning row',
    async (raw) => {
      const id = await addClick(s, cat)
      const before = await countRows(s, 'postback_errors')
      const [row] = await send(`subid=${id}&payout=${raw}`, id)
      expect(row!.revenue).toBe(5)
      expect(await countRows(s, 'postback_errors')).toBe(before)
    },
  )
})

describe('conversion date', () => {
  test.each([
    ['2024-05-06T07:08:09Z', Date.UTC(2024, 4, 6, 7, 8, 9)],
    ['2024-05-06T07:08:09.123Z', Date.UTC(2024, 4, 6, 7, 8, 9, 123)],
    ['2024-05-06T07:08:09%2B03:00', Date.UTC(2024, 4, 6, 4, 8, 9)],
    ['2024-05-06T07:08:09+03:00', Date.UTC(2024, 4, 6, 4, 8, 9)], // "+" decoded as a space
    ['2024-05-06T07:08:09-0130', Date.UTC(2024, 4, 6, 8, 38, 9)],
    ['2024-05-06T07:08:09', Date.UTC(2024, 4, 6, 7, 8, 9)], // no zone = UTC
    ['2024-05-06%2007:08', Date.UTC(2024, 4, 6, 7, 8)],
    ['2024-05-06', Date.UTC(2024, 4, 6)],
    ['1714979289', 1714979289000], // epoch seconds
    ['1714979289.5', 1714979289500],
    ['1714979289123', 1714979289123], // epoch milliseconds
  ])('%s is read as the conversion time', async (raw, expected) => {
    const id = await addClick(s, cat)
    const [row] = await send(`subid=${id}&date=${raw}`, id)
    expect(row!.date).toBe(expected)
  })

  test.each(['yesterday', '0', '1999-12-31T23:59:59Z', '2999-01-01', '2024-02-30', '2024-13-01', '99999999999999', '2024-05-06T25:00:00Z'])(
    'an unreadable or absurd date %s keeps the conversion with the received time',
    async (raw) => {
      const id = await addClick(s, cat)
      const before = Date.now()
      const [row] = await send(`subid=${id}&date=${raw}`, id)
      expect(row!.date).toBeGreaterThanOrEqual(before)
      expect(row!.date).toBeLessThanOrEqual(Date.now())
    },
  )
})

describe('transaction id and deduplication', () => {
  // Issue 14 changed this: a longer tid used to record nothing (reason invalid_tid).
  test('a 255-character tid is stored; a longer one is cut to 255 and listed as tid_truncated with the conversion id', async () => {
    const id = await addClick(s, cat)
    const before = await countRows(s, 'postback_errors')
    expect(await send(`subid=${id}&tid=${'t'.repeat(255)}`, id)).toHaveLength(1)
    expect(await countRows(s, 'postback_errors')).toBe(before)
    const rows = await send(`subid=${id}&tid=${'u'.repeat(300)}&payout=7`, id)
    expect(rows).toHaveLength(2)
    expect(rows[1]).toMatchObject({ transaction_id: 'u'.repeat(255), revenue: 7 })
    expect(await lastError(s)).toMatchObject({ reason: 'tid_truncated', click_id: id, conversion_id: rows[1]!.id })
  })

  test('a postback with two problems gets two warning rows for its one conversion', async () => {
    const id = await addClick(s, cat)
    const [row] = await send(`subid=${id}&tid=${'v'.repeat(256)}&payout=abc`, id)
    const rows = await testDb(s).all('SELECT reason, conversion_id FROM postback_errors WHERE click_id = $id ORDER BY id', { id })
    expect(rows).toEqual([{ reason: 'payout_unreadable', conversion_id: row!.id }, { reason: 'tid_truncated', conversion_id: row!.id }])
  })

  test('with postback_dedup a truncated tid deduplicates on its stored 255 characters', async () => {
    await s.ctx.settings.update({ postback_dedup: true })
    const id = await addClick(s, cat)
    await send(`subid=${id}&tid=${'w'.repeat(255)}`, id)
    expect(await send(`subid=${id}&tid=${'w'.repeat(300)}`, id)).toHaveLength(1)
    expect(await lastError(s)).toMatchObject({ reason: 'duplicate', click_id: id, conversion_id: null })
  })

  test('without postback_dedup a repeated tid creates repeated conversions (rule 7)', async () => {
    const id = await addClick(s, cat)
    await send(`subid=${id}&tid=SAME`, id)
    expect(await send(`subid=${id}&tid=SAME`, id)).toHaveLength(2)
  })

  test('with postback_dedup the same click and tid record once and list a duplicate; other tids and no tid still record', async () => {
    await s.ctx.settings.update({ postback_dedup: true })
    const id = await addClick(s, cat)
    const other = await addClick(s, cat)
    await send(`subid=${id}&tid=SAME`, id)
    expect(await send(`subid=${id}&tid=SAME&payout=99`, id)).toHaveLength(1)
    expect(await lastError(s)).toMatchObject({ reason: 'duplicate', click_id: id })
    expect(await send(`subid=${id}&tid=OTHER`, id)).toHaveLength(2)
    await send(`subid=${id}`, id)
    expect(await send(`subid=${id}`, id)).toHaveLength(4)
    expect(await send(`subid=${other}&tid=SAME`, other)).toHaveLength(1)
  })
})

describe('postbacks that record nothing are listed at /admin/api/postback-errors', () => {
  test.each(['{clickid}', '{{click_id}}', '[subid]', '%subid%', '${x}', '#clickid#', '<clickid>', '$clickid$'])(
    'an unreplaced macro %s is listed as unreplaced_macro',
    async (macro) => {
      const before = await countRows(s, 'conversions')
      await expectOk(await postback(s, `subid=${encodeURIComponent(macro)}&payout=5`))
      expect(await countRows(s, 'conversions')).toBe(before)
      const res = await s.api('GET', '/admin/api/postback-errors?reason=unreplaced_macro&limit=1', undefined, cookie)
      expect(res.status).toBe(200)
      expect(res.body.items).toHaveLength(1)
      expect(res.body.items[0]).toMatchObject({ reason: 'unreplaced_macro', click_id: macro, ip: '127.0.0.1' })
      expect(res.body.items[0].query).toBe(`subid=${encodeURIComponent(macro)}&payout=5`)
      expect(new Date(res.body.items[0].created_at).toISOString()).toBe(res.body.items[0].created_at)
    },
  )

  test('missing and unknown click ids are listed with their reasons, newest first, with cursor paging', async () => {
    const unknown = randomUUID()
    await postback(s, 'status=approved')
    await postback(s, 'subid=not-a-uuid')
    await postback(s, `subid=${unknown}`)
    const page1 = await s.api('GET', '/admin/api/postback-errors?limit=2', undefined, cookie)
    expect(page1.body.items.map((e: { reason: string; click_id: string | null }) => [e.reason, e.click_id])).toEqual([
      ['unknown_click', unknown],
      ['unknown_click', 'not-a-uuid'],
    ])
    expect(page1.body.next_cursor).toEqual(expect.any(String))
    const page2 = await s.api('GET', `/admin/api/postback-errors?limit=2&cursor=${page1.body.next_cursor}`, undefined, cookie)
    expect(page2.body.items[0]).toMatchObject({ reason: 'missing_click_id', click_id: null, query: 'status=approved' })
    const missing = await s.api('GET', '/admin/api/postback-errors?reason=missing_click_id', undefined, cookie)
    expect(missing.body.items.map((e: { query: string }) => e.query)).toContain('status=approved')
    expect(missing.body.items.filter((e: { reason: string }) => e.reason !== 'missing_click_id')).toEqual([])
    expect(page2.body.items[0].conversion_id).toBeNull()
  })

  test.each(['payout_unreadable', 'payout_currency_mismatch', 'tid_truncated'])(
    'the reason filter accepts %s; such a row names the conversion that was recorded',
    async (reason) => {
      const id = await addClick(s, cat)
      const query = { payout_unreadable: `subid=${id}&payout=abc`, payout_currency_mismatch: `subid=${id}&payout=5%20GBP`, tid_truncated: `subid=${id}&tid=${'z'.repeat(256)}` }[reason]!
      const [row] = await send(query, id)
      const res = await s.api('GET', `/admin/api/postback-errors?reason=${reason}&limit=1`, undefined, cookie)
      expect(res.status).toBe(200)
      expect(res.body.items).toEqual([{
        id: expect.any(Number), reason, click_id: id, query, ip: '127.0.0.1', conversion_id: row!.id, created_at: expect.any(String),
      }])
    },
  )

  test.each(['invalid_payout', 'invalid_tid'])('the filter still accepts %s, the reason of rows written by earlier releases', async (reason) => {
    const res = await s.api('GET', `/admin/api/postback-errors?reason=${reason}`, undefined, cookie)
    expect(res.status).toBe(200)
  })

  test('the list needs a session (401) and rejects an unknown reason filter (400)', async () => {
    expect((await s.api('GET', '/admin/api/postback-errors', undefined, '')).status).toBe(401)
    const bad = await s.api('GET', '/admin/api/postback-errors?reason=nope', undefined, cookie)
    expect(bad.status).toBe(400)
    expect(bad.body.error).toStartWith('reason:')
  })
})
