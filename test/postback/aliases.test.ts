import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { addClick, conversionsOf, lastError, ownerCookie, postback, seedCatalog, type Catalog } from './seed'

const SPEC_DEFAULTS = {
  subid: ['subid', 'sub_id', 'click_id', 'clickid', 'trackID', 'subaccount', 'aff_sub', 'aff_click_id', 'SubID', 'trackingCodes', 'sub1', 'sub2', 'cid'],
  status: ['status', 'type'],
  payout: ['payout', 'revenue', 'profit', 'summ_approved', 'payment', 'amount', 'payout_amount', 'order_sum', 'order_amount', 'affiliateCommission', 'value'],
  tid: ['tid', 'transaction_id', 'txid', 'trans_id', 'receipt'],
  date: ['date', 'conversion_time', 'action_time', 'postback_date', 'time'],
  sig: ['sig'],
  email: ['email'],
}

let s: TestServer
let cat: Catalog
let cookie: string

beforeAll(async () => {
  s = await startServer()
  cat = await seedCatalog(s)
  cookie = await ownerCookie(s)
})
afterAll(() => s.destroy())
beforeEach(() => s.ctx.settings.setJson('postback_aliases', null))

const put = (body: unknown) => s.api('PUT', '/admin/api/postback-aliases', body, cookie)

describe('GET|PUT /admin/api/postback-aliases', () => {
  test('GET returns the effective lists of all 7 parameters: the spec table, with cid last for subid', async () => {
    const res = await s.api('GET', '/admin/api/postback-aliases', undefined, cookie)
    expect(res.status).toBe(200)
    expect(res.body).toEqual(SPEC_DEFAULTS)
  })

  test('PUT replaces only the named parameter, answers the effective map, and postbacks follow it', async () => {
    const res = await put({ subid: ['my_click', 'other'], payout: ['amt'] })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ ...SPEC_DEFAULTS, subid: ['my_click', 'other', 'cid'], payout: ['amt'] })
    expect((await s.api('GET', '/admin/api/postback-aliases', undefined, cookie)).body).toEqual(res.body)

    const id = await addClick(s, cat)
    await postback(s, `subid=${id}&payout=5`)
    expect(await conversionsOf(s, id)).toHaveLength(0)
    expect((await lastError(s))!.reason).toBe('missing_click_id')
    await postback(s, `my_click=${id}&amt=6&payout=5`)
    expect(await conversionsOf(s, id)).toMatchObject([{ revenue: 6 }])
  })

  test('cid stays accepted as the last resort after a PUT replaced the subid list', async () => {
    await put({ subid: ['x_id'] })
    const id = await addClick(s, cat)
    await postback(s, `cid=${id}`)
    expect(await conversionsOf(s, id)).toHaveLength(1)
  })

  test('a list that already contains cid keeps it where it is', async () => {
    const res = await put({ subid: ['cid', 'x_id'] })
    expect(res.body.subid).toEqual(['cid', 'x_id'])
  })

  test('a later PUT keeps earlier overrides of other parameters; null restores a default', async () => {
    await put({ status: ['state'] })
    const res = await put({ tid: ['order_id'] })
    expect(res.body.status).toEqual(['state'])
    expect(res.body.tid).toEqual(['order_id'])
    const reset = await put({ status: null })
    expect(reset.body.status).toEqual(SPEC_DEFAULTS.status)
    expect(reset.body.tid).toEqual(['order_id'])
  })

  test.each([
    ['an unknown canonical name', { clickid: ['a'] }, 'clickid:'],
    ['an empty array', { subid: [] }, 'subid:'],
    ['a non-string entry', { payout: ['amount', 5] }, 'payout:'],
    ['an empty name', { tid: [''] }, 'tid:'],
    ['a non-array value', { sig: 'signature' }, 'sig:'],
    ['a JSON array body', [['subid']], 'body:'],
  ])('PUT with %s answers 400 naming it and changes nothing', async (_, body, prefix) => {
    const res = await put(body)
    expect(res.status).toBe(400)
    expect(res.body.error).toStartWith(prefix)
    expect((await s.api('GET', '/admin/api/postback-aliases', undefined, cookie)).body).toEqual(SPEC_DEFAULTS)
  })

  test('malformed JSON answers 400', async () => {
    const res = await put('{"subid": [')
    expect(res.status).toBe(400)
  })

  test('both routes need a session (401)', async () => {
    expect((await s.api('GET', '/admin/api/postback-aliases', undefined, '')).status).toBe(401)
    const res = await s.api('PUT', '/admin/api/postback-aliases', { subid: ['a'] }, '')
    expect(res.text).toBe('{"error":"not authenticated"}')
    expect(res.status).toBe(401)
  })

  test('both routes need the settings permission (403 with only conversions)', async () => {
    const user = await s.ctx.users.create({ email: 'conv@example.com', password: 'conv-password-1', permissions: { conversions: { read: true, write: true } } })
    const limited = `svc_admin_session=${s.ctx.sessions.sign(user.id, user.sessionEpoch).value}`
    expect((await s.api('GET', '/admin/api/postback-aliases', undefined, limited)).status).toBe(403)
    expect((await s.api('PUT', '/admin/api/postback-aliases', { subid: ['a'] }, limited)).status).toBe(403)
  })
})
