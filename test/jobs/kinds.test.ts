// The job loop's per-kind features, on either engine (npm test / npm run test:pg): delayed jobs (runAt),
// a retry policy and a permission section per kind, cancelling a ref's pending jobs, and the admin view
// that shows each person the jobs of the sections they hold.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { testDb } from '../helpers/db'
import { addUser, cookieFor } from '../admin/helpers'
import { eventually, type JobDbRow } from '../postback/seed'

let s: TestServer
/** When each attempt of each payload tag started. */
const attempts = new Map<string, number[]>()
const mark = (tag: string) => attempts.set(tag, [...(attempts.get(tag) ?? []), Date.now()])

const row = async (id: number) => (await testDb(s).get<JobDbRow & { section: string; ref: string | null; next_run_at: number | string }>('SELECT * FROM jobs WHERE id = $id', { id }))!
const settled = (id: number, status: string) =>
  eventually(async () => { const j = await row(id); return j.status === status ? j : undefined }, 10_000, `job ${id} ${status}`)

beforeAll(async () => {
  s = await startServer({ SVC_JOBS_POLL_MS: '50', SVC_JOBS_MAX_ATTEMPTS: '5', SVC_JOBS_BACKOFF_MS: '5000', SVC_JOBS_BACKOFF_MAX_MS: '5000' })
  s.ctx.jobs.register('test_mail', async (payload) => {
    mark((payload as { tag: string }).tag)
    return 'sent'
  }, { section: 'email' })
  // Its own policy: two attempts, 60 ms apart (the server default is five, 5 s apart).
  s.ctx.jobs.register('test_strict', async (payload) => {
    mark((payload as { tag: string }).tag)
    throw new Error('relay says no')
  }, { section: 'email', maxAttempts: 2, backoffBaseMs: 60, backoffMaxMs: 60 })
})
afterAll(() => s.destroy())

describe('job kinds', () => {
  test('a delayed job runs once it is due, not before', async () => {
    const runAt = Date.now() + 700
    const id = await s.ctx.jobs.enqueue('test_mail', { tag: 'delayed' }, { runAt })
    s.ctx.jobs.kick()
    await Bun.sleep(300)
    expect((await row(id)).status).toBe('pending')
    expect(attempts.get('delayed')).toBeUndefined()
    const done = await settled(id, 'done')
    expect(attempts.get('delayed')![0]!).toBeGreaterThanOrEqual(runAt)
    expect(Number(done.next_run_at)).toBe(runAt)
  })

  test("a kind's policy sets its attempts and backoff, and its section is stored with each job", async () => {
    const id = await s.ctx.jobs.enqueue('test_strict', { tag: 'strict' })
    s.ctx.jobs.kick()
    const failed = await settled(id, 'failed')
    expect(failed).toMatchObject({ attempts: 2, max_attempts: 2, section: 'email', last_error: 'relay says no (attempt 2 of 2; no attempts left)' })
    const [first, second] = attempts.get('strict')!
    expect(second! - first!).toBeGreaterThanOrEqual(60)
    expect(second! - first!).toBeLessThan(2000) // not the server's 5 s
    expect(s.ctx.jobs.policyOf('test_strict')).toEqual({ section: 'email', maxAttempts: 2, backoffBaseMs: 60, backoffMaxMs: 60 })
    expect(s.ctx.jobs.policyOf('source_postback')).toEqual({ section: 'conversions', maxAttempts: 5, backoffBaseMs: 5000, backoffMaxMs: 5000 })
    expect(s.ctx.jobs.policyOf('nope')).toBeNull()
  })

  test('cancelRef cancels the pending jobs of one ref: they never run; other refs run', async () => {
    const later = Date.now() + 400
    const mine = [
      await s.ctx.jobs.enqueue('test_mail', { tag: 'r1-a' }, { runAt: later, ref: 'subscriber:1' }),
      await s.ctx.jobs.enqueue('test_mail', { tag: 'r1-b' }, { runAt: later + 50, ref: 'subscriber:1' }),
    ]
    const other = await s.ctx.jobs.enqueue('test_mail', { tag: 'r2' }, { runAt: later, ref: 'subscriber:2' })
    expect(await s.ctx.jobs.cancelRef('subscriber:1')).toBe(2)
    await settled(other, 'done')
    await Bun.sleep(200)
    for (const id of mine) expect(await row(id)).toMatchObject({ status: 'cancelled', ref: 'subscriber:1', attempts: 0 })
    expect(attempts.get('r1-a')).toBeUndefined()
    expect(attempts.get('r1-b')).toBeUndefined()
    expect(await s.ctx.jobs.cancelRef('subscriber:1')).toBe(0)
  })
})

describe('/admin/api/jobs by section', () => {
  let emailReader: string
  let conversionsWriter: string
  let emailWriter: string
  let forward: number
  let mail: number

  beforeAll(async () => {
    emailReader = await cookieFor(s, await addUser(s, 'mail-reader@example.com', { email: { read: true } }))
    emailWriter = await cookieFor(s, await addUser(s, 'mail-writer@example.com', { email: { read: true, write: true } }))
    conversionsWriter = await cookieFor(s, await addUser(s, 'conv@example.com', { conversions: { read: true, write: true } }))
    // Far in the future, so they stay pending. A source_postback job goes to an address nobody listens on.
    const future = Date.now() + 3600_000
    forward = await s.ctx.jobs.enqueue('source_postback', { conversion_id: 1, url: 'http://127.0.0.1:9/pb' }, { runAt: future })
    mail = await s.ctx.jobs.enqueue('test_mail', { tag: 'admin' }, { runAt: future, ref: 'subscriber:9' })
  })

  const ids = (body: { items: Array<{ id: number }> }) => body.items.map((j) => j.id)

  test('each person sees the jobs of the sections they may read', async () => {
    const asMail = await s.api('GET', '/admin/api/jobs?status=pending', undefined, emailReader)
    expect(asMail.status).toBe(200)
    expect(ids(asMail.body)).toContain(mail)
    expect(ids(asMail.body)).not.toContain(forward)
    expect(asMail.body.items.every((j: { section: string }) => j.section === 'email')).toBe(true)
    const asConv = await s.api('GET', '/admin/api/jobs?status=pending', undefined, conversionsWriter)
    expect(ids(asConv.body)).toContain(forward)
    expect(ids(asConv.body)).not.toContain(mail)
    // The owner sees both; ?section= narrows it.
    const owner = await s.api('GET', '/admin/api/jobs?status=pending', undefined)
    expect(ids(owner.body)).toEqual(expect.arrayContaining([mail, forward]))
    expect(ids((await s.api('GET', '/admin/api/jobs?status=pending&section=email', undefined)).body)).not.toContain(forward)

    expect((await s.api('GET', `/admin/api/jobs/${mail}`, undefined, emailReader)).body).toMatchObject({ id: mail, section: 'email', ref: 'subscriber:9' })
    expect(await s.api('GET', `/admin/api/jobs/${forward}`, undefined, emailReader)).toMatchObject({ status: 403, body: { error: 'missing permission conversions:read' } })
    expect(await s.api('GET', '/admin/api/jobs?section=conversions', undefined, emailReader)).toMatchObject({ status: 403, body: { error: 'missing permission conversions:read' } })
    expect(await s.api('GET', '/admin/api/jobs?section=nope', undefined, emailReader)).toMatchObject({ status: 400 })
  })

  test('cancel: 403 without write on its section, 200 for a pending job, then 409; a cancelled job cannot be retried', async () => {
    expect(await s.api('POST', `/admin/api/jobs/${mail}/cancel`, undefined, emailReader)).toMatchObject({ status: 403 })
    expect(await s.api('POST', `/admin/api/jobs/${mail}/cancel`, undefined, conversionsWriter))
      .toMatchObject({ status: 403, body: { error: 'missing permission email:write' } })
    const res = await s.api('POST', `/admin/api/jobs/${mail}/cancel`, undefined, emailWriter)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: mail, status: 'cancelled' })
    expect(await s.api('POST', `/admin/api/jobs/${mail}/cancel`, undefined, emailWriter))
      .toMatchObject({ status: 409, body: { error: `job ${mail} is cancelled; only pending jobs can be cancelled` } })
    expect(await s.api('POST', `/admin/api/jobs/${mail}/retry`, undefined, emailWriter))
      .toMatchObject({ status: 409, body: { error: `job ${mail} is cancelled; only failed jobs can be retried` } })
    expect(await s.api('POST', '/admin/api/jobs/999999/cancel', undefined, emailWriter)).toMatchObject({ status: 404, body: { error: 'job not found' } })
    // The list filter knows the status.
    expect(ids((await s.api('GET', '/admin/api/jobs?status=cancelled', undefined, emailWriter)).body)).toContain(mail)
  })
})
