// Automations, on either engine, end to end through a real SMTP relay the test starts: a postback with
// email= for an offer with a trigger → the buyer joins the list → the automation's first message is
// delivered → one click on its unsubscribe link → the next message is never sent (its job is cancelled).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { header, startRelay } from '../helpers/smtp-relay'
import { testDb } from '../helpers/db'
import { addClick, eventually, postback, seedCatalog } from '../postback/seed'
import { invoke, systemActor } from '../../src/lib/verb'

let relay: Awaited<ReturnType<typeof startRelay>>
let s: TestServer

beforeAll(async () => {
  relay = await startRelay()
  s = await startServer({ SVC_SMTP_URL: relay.url, SVC_PUBLIC_URL: 'https://track.example', SVC_JOBS_POLL_MS: '50' })
  await s.api('PUT', '/admin/api/settings', { email_from: 'Shop <news@shop.example>' })
})
afterAll(async () => {
  await s?.destroy()
  relay?.close()
})

const stepJobs = () => testDb(s).all<{ id: number; status: string; result: string | null; payload: string; next_run_at: number | string }>(
  "SELECT id, status, result, payload, next_run_at FROM jobs WHERE kind = 'email_automation_step' ORDER BY id",
)

describe('/admin/api/automations', () => {
  test('create checks the list and every message (400 naming the field); read, change, delete', async () => {
    const list = (await s.api('POST', '/admin/api/email-lists', { name: 'Crud' })).body.id
    const step = { delay_minutes: 0, subject: 'Hi', text: 'Hello' }
    expect(await s.api('POST', '/admin/api/automations', { list_id: 999999, name: 'A', steps: [step] }))
      .toMatchObject({ status: 400, body: { error: 'list_id: email list 999999 does not exist' } })
    expect(await s.api('POST', '/admin/api/automations', { list_id: list, name: 'A', steps: [step, { ...step, subject: 'x\r\nBcc: y@example.com' }] }))
      .toMatchObject({ status: 400, body: { error: 'steps.1.subject: must not contain line breaks or control characters' } })
    expect(await s.api('POST', '/admin/api/automations', { list_id: list, name: 'A', steps: [{ ...step, text: '  ' }] }))
      .toMatchObject({ status: 400, body: { error: 'steps.0.text: must be a non-empty string' } })
    expect((await s.api('POST', '/admin/api/automations', { list_id: list, name: 'A', steps: [{ ...step, delay_minutes: -1 }] })).status).toBe(400)
    const res = await s.api('POST', '/admin/api/automations', { list_id: list, name: ' Welcome ', steps: [step, { delay_minutes: 1440, subject: 'Day 2', text: 'More', html: '<p>More</p>' }] })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: res.body.id, list_id: list, name: 'Welcome', active: true,
      steps: [{ delay_minutes: 0, subject: 'Hi', text: 'Hello', html: null }, { delay_minutes: 1440, subject: 'Day 2', text: 'More', html: '<p>More</p>' }],
      created_at: expect.any(String), updated_at: expect.any(String),
    })
    expect((await s.api('PATCH', `/admin/api/automations/${res.body.id}`, { active: false })).body).toMatchObject({ active: false, steps: res.body.steps })
    expect((await s.api('DELETE', `/admin/api/automations/${res.body.id}`)).body).toEqual({ ok: true })
    expect(await s.api('GET', `/admin/api/automations/${res.body.id}`)).toMatchObject({ status: 404, body: { error: 'email automation not found' } })
  })
})

describe('postback → trigger → automation → unsubscribe', () => {
  test('the first message is delivered, the one-click unsubscribe cancels the next, which is never sent', async () => {
    const c = await seedCatalog(s)
    const list = (await s.api('POST', '/admin/api/email-lists', { name: 'Buyers' })).body.id
    // A subscriber from before the automation existed gets none of its messages.
    await s.api('POST', `/admin/api/email-lists/${list}/subscribers`, { email: 'early@example.com' })
    const automation = await s.api('POST', '/admin/api/automations', {
      list_id: list, name: 'After purchase',
      steps: [
        { delay_minutes: 0, subject: 'Thanks {email}', text: 'Your order is on its way.' },
        { delay_minutes: 60, subject: 'How was it?', text: 'Tell us.' },
      ],
    })
    expect(automation.status).toBe(201)
    expect((await s.api('POST', '/admin/api/email-triggers', { offer_id: c.offerId, target_list_id: list })).status).toBe(201)
    await Bun.sleep(150) // the trigger and automation tables reload after their writes commit

    const click = await addClick(s, c)
    const before = Date.now()
    expect((await postback(s, `subid=${click}&email=buyer@example.com&tid=order-1`)).status).toBe(200)

    // The buyer joined through the trigger; both messages were scheduled in that enrolment's transaction.
    const sub = await eventually(async () => (await s.api('GET', `/admin/api/email-lists/${list}/subscribers?email=buyer@example.com`)).body.items[0], 10_000, 'buyer enrolled')
    expect(sub.source).toBe('trigger')
    const mail = await eventually(() => relay.received.find((m) => m.to[0] === 'buyer@example.com'), 10_000, 'first message delivered')
    expect(header(mail.raw, 'Subject')).toBe('Thanks buyer@example.com')
    const jobs = (await stepJobs()).filter((j) => JSON.parse(j.payload).subscriber_id === sub.id)
    expect(jobs.map((j) => JSON.parse(j.payload).step)).toEqual([0, 1])
    const dueSecond = Number(jobs[1]!.next_run_at)
    expect(dueSecond).toBeGreaterThanOrEqual(before + 60 * 60_000 - 1000)
    expect(dueSecond).toBeLessThanOrEqual(Date.now() + 60 * 60_000)
    expect(jobs[1]!.status).toBe('pending')

    // One click on the link the message carries.
    const link = /<(https:\/\/track\.example\/email\/unsubscribe\/[^>]+)>/.exec(header(mail.raw, 'List-Unsubscribe')!)![1]!
    const res = await fetch(`${s.base}${new URL(link).pathname}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' })
    expect(res.status).toBe(200)
    const after = await stepJobs()
    expect(after.find((j) => j.id === jobs[1]!.id)!.status).toBe('cancelled')
    expect(after.find((j) => j.id === jobs[0]!.id)!.status).toBe('done')
    // Nothing for the subscriber who was there before the automation.
    expect(after.filter((j) => JSON.parse(j.payload).list_id === list).every((j) => JSON.parse(j.payload).subscriber_id === sub.id)).toBe(true)
    expect(relay.received.filter((m) => m.to[0] === 'buyer@example.com')).toHaveLength(1)
    expect(relay.received.some((m) => m.to[0] === 'early@example.com')).toBe(false)
  })

  test('a step run again after a crash (its outcome never recorded) does not queue or send its message twice', async () => {
    const list = (await s.api('POST', '/admin/api/email-lists', { name: 'Once' })).body.id
    await s.api('POST', '/admin/api/automations', { list_id: list, name: 'Welcome', steps: [{ delay_minutes: 0, subject: 'Welcome', text: 'Hello' }] })
    await Bun.sleep(150)
    const sub = (await s.api('POST', `/admin/api/email-lists/${list}/subscribers`, { email: 'once@example.com' })).body
    const [job] = (await stepJobs()).filter((j) => JSON.parse(j.payload).subscriber_id === sub.id)
    const first = await eventually(async () => (await stepJobs()).find((j) => j.id === job!.id && j.status === 'done'), 10_000, 'step done')
    await eventually(() => relay.received.find((m) => m.to[0] === 'once@example.com'), 10_000, 'message delivered')
    const outboxOf = () => testDb(s).all<{ id: number }>("SELECT id FROM email_outbox WHERE to_email = 'once@example.com'")
    const rows = await outboxOf()
    expect(rows).toHaveLength(1)
    expect(first.result).toContain(`queued as outbox ${rows[0]!.id}`)
    // What a restart does to a job whose attempt ran but whose outcome was never written: it runs again.
    await testDb(s).run("UPDATE jobs SET status = 'pending', next_run_at = 0, result = NULL WHERE id = $id", { id: job!.id })
    s.ctx.jobs.kick()
    const again = await eventually(async () => (await stepJobs()).find((j) => j.id === job!.id && j.status === 'done' && j.result !== null), 10_000, 'step done again')
    expect(again.result).toContain(`queued as outbox ${rows[0]!.id}`)
    expect(await outboxOf()).toEqual(rows)
    await Bun.sleep(300) // a second send job, if one had been queued, would have run by now
    expect(relay.received.filter((m) => m.to[0] === 'once@example.com')).toHaveLength(1)
  })

  test('a step job whose subscriber is no longer active sends nothing', async () => {
    const list = (await s.api('POST', '/admin/api/email-lists', { name: 'Gone' })).body.id
    await s.api('POST', '/admin/api/automations', { list_id: list, name: 'Later', steps: [{ delay_minutes: 1, subject: 'Soon', text: 'x' }] })
    await Bun.sleep(150)
    const sub = (await s.api('POST', `/admin/api/email-lists/${list}/subscribers`, { email: 'removed@example.com' })).body
    const [job] = (await stepJobs()).filter((j) => JSON.parse(j.payload).subscriber_id === sub.id)
    expect(job!.status).toBe('pending')
    // Removing the subscriber cancels the step; a step that runs anyway (made due here) finds no subscriber.
    expect((await s.api('DELETE', `/admin/api/email-lists/${list}/subscribers/${sub.id}`)).body).toEqual({ ok: true })
    expect((await stepJobs()).find((j) => j.id === job!.id)!.status).toBe('cancelled')
    await testDb(s).run("UPDATE jobs SET status = 'pending', next_run_at = 0 WHERE id = $id", { id: job!.id })
    s.ctx.jobs.kick()
    const done = await eventually(async () => (await stepJobs()).find((j) => j.id === job!.id && j.status === 'done'), 10_000, 'step done')
    expect(done.result).toBe('not sent: the subscriber is removed')
    expect(relay.received.some((m) => m.to[0] === 'removed@example.com')).toBe(false)
  })

  test('email.purchases.enroll (what commerce calls on a paid order) enrols the buyer and starts the list\'s automation', async () => {
    const list = (await s.api('POST', '/admin/api/email-lists', { name: 'Paid' })).body.id
    await s.api('POST', '/admin/api/automations', { list_id: list, name: 'Post-purchase', steps: [{ delay_minutes: 0, subject: 'Receipt for {name}', text: 'Thanks' }] })
    await Bun.sleep(150)
    const verb = s.server.verbs.get('email.purchases.enroll')!
    const out = await invoke(verb, systemActor('commerce'), { list_id: list, email: 'Payer@Example.com', name: 'Pat' } as never) as { subscriber_id: number; created: boolean }
    expect(out).toEqual({ subscriber_id: expect.any(Number), created: true })
    expect(await invoke(verb, systemActor('commerce'), { list_id: list, email: 'payer@example.com' } as never)).toEqual({ subscriber_id: out.subscriber_id, created: false })
    const sub = (await s.api('GET', `/admin/api/email-lists/${list}/subscribers/${out.subscriber_id}`)).body
    expect(sub).toMatchObject({ email: 'payer@example.com', name: 'Pat', source: 'purchase' })
    const mail = await eventually(() => relay.received.find((m) => m.to[0] === 'payer@example.com'), 10_000, 'receipt delivered')
    expect(header(mail.raw, 'Subject')).toBe('Receipt for Pat')

    // The merchant resends the post-purchase sequence: it runs again from its first step.
    const restart = `/admin/api/email-lists/${list}/subscribers/${out.subscriber_id}/restart-automations`
    expect(await s.api('POST', restart)).toMatchObject({ status: 200, body: { ok: true } })
    await eventually(() => relay.received.filter((m) => m.to[0] === 'payer@example.com').length === 2 || undefined, 10_000, 'receipt sent again')
    expect(await s.api('POST', `/admin/api/email-lists/${list}/subscribers/999999/restart-automations`)).toMatchObject({ status: 404, body: { error: 'subscriber not found' } })
    await testDb(s).run("UPDATE email_subscribers SET status = 'unsubscribed' WHERE id = $id", { id: out.subscriber_id })
    expect(await s.api('POST', restart)).toMatchObject({ status: 409, body: { error: 'the subscriber is unsubscribed: nothing is sent to them' } })
  })
})
