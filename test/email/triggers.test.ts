// Email triggers (postback rule 6), on either engine: the collection and its checks, and a postback whose
// offer has a trigger enrolling the buyer's email= in the trigger's list through an email_enroll job.
// Only types that count as a conversion fire; rejects, chargebacks, inactive triggers and other offers do
// not; a postback without an email enrols nothing and fails nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { testDb } from '../helpers/db'
import { addClick, eventually, postback, seedCatalog, type Catalog } from '../postback/seed'

let s: TestServer
let c: Catalog
let list: number

beforeAll(async () => {
  s = await startServer({ SVC_JOBS_POLL_MS: '50' })
  c = await seedCatalog(s)
  list = (await s.api('POST', '/admin/api/email-lists', { name: 'Buyers' })).body.id
})
afterAll(() => s.destroy())

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const subscribers = async (l = list) => (await s.api('GET', `/admin/api/email-lists/${l}/subscribers`)).body.items as Array<{ email: string; source: string }>
const enrolJobs = async () => testDb(s).all<{ id: number; status: string; result: string | null; payload: string }>(
  "SELECT id, status, result, payload FROM jobs WHERE kind = 'email_enroll' ORDER BY id",
)

describe('/admin/api/email-triggers', () => {
  test('create needs an existing offer and list (400 naming the field); read, change, delete', async () => {
    expect(await s.api('POST', '/admin/api/email-triggers', { offer_id: 999999, target_list_id: list }))
      .toMatchObject({ status: 400, body: { error: 'offer_id: offer 999999 does not exist' } })
    expect(await s.api('POST', '/admin/api/email-triggers', { offer_id: c.offerId, target_list_id: 999999 }))
      .toMatchObject({ status: 400, body: { error: 'target_list_id: email list 999999 does not exist' } })
    expect((await s.api('POST', '/admin/api/email-triggers', { offer_id: c.offerId })).status).toBe(400)
    const res = await s.api('POST', '/admin/api/email-triggers', { offer_id: c.offerId, target_list_id: list })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({ id: res.body.id, offer_id: c.offerId, target_list_id: list, active: true, created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO) })
    const off = await s.api('PATCH', `/admin/api/email-triggers/${res.body.id}`, { active: false })
    expect(off.body).toMatchObject({ id: res.body.id, active: false, offer_id: c.offerId })
    expect(await s.api('PATCH', `/admin/api/email-triggers/${res.body.id}`, { target_list_id: 999999 }))
      .toMatchObject({ status: 400, body: { error: 'target_list_id: email list 999999 does not exist' } })
    expect((await s.api('GET', '/admin/api/email-triggers')).body.items.map((t: { id: number }) => t.id)).toContain(res.body.id)
    expect((await s.api('DELETE', `/admin/api/email-triggers/${res.body.id}`)).body).toEqual({ ok: true })
    expect(await s.api('GET', `/admin/api/email-triggers/${res.body.id}`)).toMatchObject({ status: 404, body: { error: 'email trigger not found' } })
    expect(await s.api('PATCH', '/admin/api/email-triggers/999999', { active: true })).toMatchObject({ status: 404, body: { error: 'email trigger not found' } })
  })
})

describe('a conversion of a triggered offer', () => {
  let trigger: number
  beforeAll(async () => {
    trigger = (await s.api('POST', '/admin/api/email-triggers', { offer_id: c.offerId, target_list_id: list })).body.id
    // The trigger table reloads after the write commits (every instance); give it a moment.
    await Bun.sleep(100)
  })

  test("enrols the postback's email= in the list (source trigger), once however often it converts", async () => {
    const before = (await enrolJobs()).length
    const click = await addClick(s, c)
    expect((await postback(s, `subid=${click}&email=%20Buyer@Example.COM&tid=t1`)).status).toBe(200)
    expect((await postback(s, `subid=${click}&email=buyer@example.com&tid=t2`)).status).toBe(200)
    const jobs = await eventually(async () => {
      const j = (await enrolJobs()).slice(before)
      return j.length === 2 && j.every((x) => x.status === 'done') ? j : undefined
    }, 10_000, 'enrol jobs done')
    expect(jobs.map((j) => j.result).sort()).toEqual(['buyer@example.com was already in the list', 'enrolled buyer@example.com'])
    expect(JSON.parse(jobs[0]!.payload)).toMatchObject({ list_id: list, click_id: click })
    expect((await subscribers()).map((x) => [x.email, x.source])).toEqual([['buyer@example.com', 'trigger']])
    const job = await s.api('GET', `/admin/api/jobs/${jobs[0]!.id}`)
    expect(job.body).toMatchObject({ kind: 'email_enroll', section: 'email', status: 'done' })
  })

  test('no email and no lead: the job finds no address; a reject or a chargeback fires nothing; an invalid address enrols nobody', async () => {
    const before = (await enrolJobs()).length
    const click = await addClick(s, c)
    expect((await postback(s, `subid=${click}&tid=no-mail`)).status).toBe(200)
    for (const status of ['rejected', 'chargeback']) {
      expect((await postback(s, `subid=${click}&status=${status}&email=refund-${status}@example.com&tid=${status}`)).status).toBe(200)
    }
    // An invalid address is no enrolment and no failure either.
    expect((await postback(s, `subid=${click}&email=not-an-address&tid=bad-mail`)).status).toBe(200)
    // Without email= the job looks for the click's lead (postback rule 6); this click has none.
    const after = await eventually(async () => {
      const j = (await enrolJobs()).slice(before)
      return j.length === 2 && j.every((x) => x.status === 'done') ? j : undefined
    }, 10_000, 'both jobs done')
    expect(after.map((j) => j.result).sort()).toEqual(['no email for this buyer: nothing enrolled', "the buyer's email is not a valid address: nothing enrolled"])
    expect((await subscribers()).map((x) => x.email)).toEqual(['buyer@example.com'])
  })

  test('an inactive trigger or another offer enrols nobody', async () => {
    await s.api('PATCH', `/admin/api/email-triggers/${trigger}`, { active: false })
    await Bun.sleep(100)
    const before = (await enrolJobs()).length
    const click = await addClick(s, c)
    expect((await postback(s, `subid=${click}&email=late@example.com&tid=off`)).status).toBe(200)
    const other = await seedCatalog(s)
    const otherClick = await addClick(s, other)
    expect((await postback(s, `subid=${otherClick}&email=other@example.com`)).status).toBe(200)
    await Bun.sleep(300)
    expect((await enrolJobs()).length).toBe(before)
    expect((await subscribers()).map((x) => x.email)).toEqual(['buyer@example.com'])
    await s.api('PATCH', `/admin/api/email-triggers/${trigger}`, { active: true })
  })
})
