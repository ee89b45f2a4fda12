import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { createHmac, randomUUID } from 'node:crypto'
import { testDb } from '../helpers/db'
import { startServer, type TestServer } from '../helpers/server'
import { addClick, conversionsOf, countRows, postback, seedCatalog, type Catalog } from './seed'

const SECRET = 'pb-secret-123-long-enough'
let s: TestServer
let cat: Catalog

beforeAll(async () => {
  s = await startServer()
  cat = await seedCatalog(s, { payout: 2 })
})
afterAll(() => s.destroy())
afterEach(() => s.ctx.settings.update({ postback_secret: null }))

/** Spec §5, computed independently of the implementation. */
const sign = (subid: string, status: string, payout: string, tid: string) =>
  createHmac('sha256', SECRET).update(`${subid}|${status}|${payout}|${tid}`).digest('hex')

async function expect401(res: Response) {
  expect(res.status).toBe(401)
  expect(await res.json()).toEqual({ error: 'invalid signature' })
}

describe('postback signature (postback_secret set)', () => {
  test('a missing sig answers 401 {"error":"invalid signature"} and records nothing, not even an error row', async () => {
    await s.ctx.settings.update({ postback_secret: SECRET })
    const id = await addClick(s, cat)
    const errors = await countRows(s, 'postback_errors')
    await expect401(await postback(s, `subid=${id}&status=approved`))
    expect(await conversionsOf(s, id)).toHaveLength(0)
    expect(await countRows(s, 'postback_errors')).toBe(errors)
  })

  test('an invalid sig answers 401 and records nothing', async () => {
    await s.ctx.settings.update({ postback_secret: SECRET })
    const id = await addClick(s, cat)
    const wrong = createHmac('sha256', 'other-secret').update(`${id}|approved||`).digest('hex')
    await expect401(await postback(s, `subid=${id}&status=approved&sig=${wrong}`))
    await expect401(await postback(s, `subid=${id}&status=approved&sig=`))
    await expect401(await postback(s, `subid=${id}&status=approved&sig=${sign(id, 'approved', '1', '')}`))
    expect(await conversionsOf(s, id)).toHaveLength(0)
  })

  test('a valid sig over subid|status|payout|tid answers 200 OK and records the conversion', async () => {
    await s.ctx.settings.update({ postback_secret: SECRET })
    const id = await addClick(s, cat)
    const res = await postback(s, `subid=${id}&status=approved&payout=12.50&tid=T9&sig=${sign(id, 'approved', '12.50', 'T9')}`)
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('OK')
    expect((await conversionsOf(s, id))[0]).toMatchObject({ revenue: 12.5, transaction_id: 'T9' })
  })

  test('absent status, payout and tid are signed as empty strings', async () => {
    await s.ctx.settings.update({ postback_secret: SECRET })
    const id = await addClick(s, cat)
    expect((await postback(s, `subid=${id}&sig=${sign(id, '', '', '')}`)).status).toBe(200)
    expect(await conversionsOf(s, id)).toHaveLength(1)
  })

  test('the signed values are the raw received strings of the winning aliases', async () => {
    await s.ctx.settings.update({ postback_secret: SECRET })
    const id = (await addClick(s, cat)).toUpperCase()
    const sig = sign(id, 'Approved ', '0012.500', 'a b')
    const res = await postback(s, `click_id=${id}&type=Approved%20&revenue=0012.500&txid=a+b&sig=${sig}`)
    expect(res.status).toBe(200)
    expect(await conversionsOf(s, id.toLowerCase())).toHaveLength(1)
  })

  test('the hex signature is accepted in upper case', async () => {
    await s.ctx.settings.update({ postback_secret: SECRET })
    const id = await addClick(s, cat)
    expect((await postback(s, `subid=${id}&sig=${sign(id, '', '', '').toUpperCase()}`)).status).toBe(200)
    expect(await conversionsOf(s, id)).toHaveLength(1)
  })

  test('a validly signed postback for an unknown click answers 200 OK and lists unknown_click', async () => {
    await s.ctx.settings.update({ postback_secret: SECRET })
    const unknown = randomUUID()
    const res = await postback(s, `subid=${unknown}&sig=${sign(unknown, '', '', '')}`)
    expect(res.status).toBe(200)
    const last = await testDb(s).get('SELECT reason, click_id FROM postback_errors ORDER BY id DESC LIMIT 1')
    expect(last).toEqual({ reason: 'unknown_click', click_id: unknown })
  })

  test('without a postback_secret postbacks are unsigned and any sig is ignored', async () => {
    const id = await addClick(s, cat)
    expect((await postback(s, `subid=${id}`)).status).toBe(200)
    expect((await postback(s, `subid=${id}&sig=garbage`)).status).toBe(200)
    expect(await conversionsOf(s, id)).toHaveLength(2)
  })
})
