import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { startListener, type Listener } from '../helpers/listener'
import { testDb } from '../helpers/db'
import { addClick, conversionsOf, eventually, jobsOf, ownerCookie, postback, seedCatalog, type JobDbRow } from '../postback/seed'

let s: TestServer
let cookie: string
const listeners: Listener[] = []
const releases: Array<() => void> = []

beforeAll(async () => {
  s = await startServer({ SVC_OUTBOUND_ALLOW_PRIVATE: '1', SVC_JOBS_MAX_ATTEMPTS: '3' })
  cookie = await ownerCookie(s)
})
afterAll(async () => {
  for (const release of releases) release()
  await s.destroy()
  for (const l of listeners) l.stop()
})

function listen(respond?: Parameters<typeof startListener>[0]): Listener {
  const l = startListener(respond)
  listeners.push(l)
  return l
}

/** A campaign whose source forwards to `template` (relative to the listener), plus one click of it. */
async function clickForwardingTo(l: Listener | string, template = '/pb?cid={click_id}', externalId: string | null = 'ext-1') {
  const base = typeof l === 'string' ? l : l.base
  const cat = await seedCatalog(s, { postbackUrl: base + template, payout: 3, externalId })
  return addClick(s, cat)
}

async function jobFor(clickId: string): Promise<JobDbRow | undefined> {
  const conv = (await conversionsOf(s, clickId))[0]
  if (!conv) return undefined
  return (await jobsOf(s)).find((j) => JSON.parse(j.payload).conversion_id === conv.id)
}

const settled = (clickId: string, status: 'done' | 'failed') =>
  eventually(async () => { const j = await jobFor(clickId); return j?.status === status ? j : undefined }, 10_000, `job ${status}`)

describe('forwarding a conversion to its traffic source', () => {
  test('the source receives a GET with {click_id} {payout} {external_id} {status} substituted and URL-encoded', async () => {
    const l = listen()
    const id = await clickForwardingTo(l, '/pb?cid={click_id}&p={payout}&ext={external_id}&st={status}&keep={other}', 'camp 7&x=1/é')
    const res = await postback(s, `subid=${id}&status=approved&payout=12.50`)
    expect(res.status).toBe(200)
    const [req] = await l.waitFor(1)
    expect(req!.method).toBe('GET')
    expect(req!.url.pathname).toBe('/pb')
    expect(req!.url.search).toBe(`?cid=${id}&p=12.5&ext=camp%207%26x%3D1%2F%C3%A9&st=sale&keep={other}`)
    expect(Object.fromEntries(req!.url.searchParams)).toEqual({ cid: id, p: '12.5', ext: 'camp 7&x=1/é', st: 'sale', keep: '{other}' })
    const job = await settled(id, 'done')
    // The result names the status and how long the source took to answer (issue 30: the click timeline shows it).
    expect(job).toMatchObject({ kind: 'source_postback', attempts: 1, result: expect.stringMatching(/^HTTP 200 in \d+ ms$/), last_error: null })
    expect(JSON.parse(job.payload)).toEqual({ conversion_id: (await conversionsOf(s, id))[0]!.id, url: `${l.base}/pb?cid=${id}&p=12.5&ext=camp%207%26x%3D1%2F%C3%A9&st=sale&keep={other}` })
  })

  test('{payout} is the offer payout when the postback has none, {status} the resolved type slug, {external_id} empty when unset', async () => {
    const l = listen()
    const id = await clickForwardingTo(l, '/pb?p={payout}&st={status}&ext={external_id}', null)
    await postback(s, `subid=${id}&status=pending`)
    const [req] = await l.waitFor(1)
    expect(req!.url.search).toBe('?p=3&st=lead&ext=')
  })

  test.each([['trial'], ['rejected'], ['chargeback']])('a %s conversion is recorded but never forwarded', async (status) => {
    const l = listen()
    const id = await clickForwardingTo(l)
    const jobs = (await jobsOf(s)).length
    await postback(s, `subid=${id}&status=${status}`)
    expect(await conversionsOf(s, id)).toHaveLength(1)
    expect((await jobsOf(s)).length).toBe(jobs)
    // A sale of the same click is forwarded, so the source URL itself works.
    await postback(s, `subid=${id}&status=approved`)
    await l.waitFor(1)
    expect(l.received).toHaveLength(1)
  })

  test('a source without postback_url gets nothing', async () => {
    const cat = await seedCatalog(s, { postbackUrl: null })
    const id = await addClick(s, cat)
    const jobs = (await jobsOf(s)).length
    await postback(s, `subid=${id}&status=approved`)
    expect(await conversionsOf(s, id)).toHaveLength(1)
    expect((await jobsOf(s)).length).toBe(jobs)
  })

  test('a 5xx is retried: 503 then 200 ends done with attempts=2', async () => {
    const l = listen((_, n) => new Response(n === 1 ? 'upstream down' : 'ok', { status: n === 1 ? 503 : 200 }))
    const id = await clickForwardingTo(l)
    await postback(s, `subid=${id}`)
    const job = await settled(id, 'done')
    expect(job.attempts).toBe(2)
    expect(job.result).toMatch(/^HTTP 200 in \d+ ms$/)
    expect(job.last_error).toMatch(/^HTTP 503: upstream down \(after \d+ ms\) \(attempt 1 of 3; will retry\)$/)
    expect(l.received).toHaveLength(2)
  })

  test('a 429 is retried', async () => {
    const l = listen((_, n) => new Response('', { status: n === 1 ? 429 : 204 }))
    const id = await clickForwardingTo(l)
    await postback(s, `subid=${id}`)
    expect(await settled(id, 'done')).toMatchObject({ attempts: 2, result: expect.stringMatching(/^HTTP 204 in \d+ ms$/) })
  })

  test('a 4xx fails at once with the status in last_error', async () => {
    const l = listen(() => new Response('no such campaign', { status: 404 }))
    const id = await clickForwardingTo(l)
    await postback(s, `subid=${id}`)
    const job = await settled(id, 'failed')
    expect(job.attempts).toBe(1)
    expect(job.last_error).toMatch(/^HTTP 404: no such campaign \(after \d+ ms\) \(attempt 1 of 3; not retryable\)$/)
    expect(l.received).toHaveLength(1)
  })

  test('a redirect is not followed and fails at once', async () => {
    const target = listen()
    const l = listen(() => new Response(null, { status: 302, headers: { location: `${target.base}/elsewhere` } }))
    const id = await clickForwardingTo(l)
    await postback(s, `subid=${id}`)
    const job = await settled(id, 'failed')
    expect(job.attempts).toBe(1)
    expect(job.last_error).toContain(`HTTP 302 redirect to ${target.base}/elsewhere (redirects are not followed`)
    expect(target.received).toHaveLength(0)
  })

  test('a source that is down is retried up to max_attempts, then failed', async () => {
    const gone = startListener()
    const base = gone.base
    gone.stop()
    const id = await clickForwardingTo(base)
    await postback(s, `subid=${id}`)
    const job = await settled(id, 'failed')
    expect(job.attempts).toBe(3)
    expect(job.last_error).toStartWith('network error:')
    expect(job.last_error).toEndWith('(attempt 3 of 3; no attempts left)')
  })

  test('the /postback answer does not wait for a source that hangs', async () => {
    const l = listen(() => new Promise<Response>((resolve) => releases.push(() => resolve(new Response('late')))))
    const id = await clickForwardingTo(l)
    const res = await postback(s, `subid=${id}`)
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('OK')
    await l.waitFor(1)
    // The source has the request but has not answered: the attempt is still in flight.
    expect((await jobFor(id))!.status).toBe('running')
  })
})

describe('forwarding without SVC_OUTBOUND_ALLOW_PRIVATE', () => {
  let strict: TestServer
  beforeAll(async () => { strict = await startServer() })
  afterAll(() => strict.destroy())

  test.each([
    ['a loopback address', (port: number) => `http://127.0.0.1:${port}/pb`, 'refused: 127.0.0.1 is a private address (set SVC_OUTBOUND_ALLOW_PRIVATE=1 to allow)'],
    ['localhost', (port: number) => `http://localhost:${port}/pb`, 'refused: localhost is a loopback name (set SVC_OUTBOUND_ALLOW_PRIVATE=1 to allow)'],
  ])('a source URL at %s is refused as SSRF: the job fails at once with a clear last_error', async (_, url, message) => {
    const l = listen()
    const cat = await seedCatalog(strict, { postbackUrl: url(Number(new URL(l.base).port)) })
    const id = await addClick(strict, cat)
    await postback(strict, `subid=${id}`)
    const job = await eventually(() => testDb(strict).get<JobDbRow>("SELECT * FROM jobs WHERE status = 'failed' ORDER BY id DESC LIMIT 1"), 10_000, 'failed job')
    expect(job.attempts).toBe(1)
    expect(job.last_error).toBe(`${message} (attempt 1 of 8; not retryable)`)
    expect(l.received).toHaveLength(0)
    await testDb(strict).run('DELETE FROM jobs')
  })
})

describe('/admin/api/jobs', () => {
  test('lists jobs newest first with their fields, filters by status and kind, and shows one job', async () => {
    const l = listen(() => new Response('bad', { status: 400 }))
    const id = await clickForwardingTo(l)
    await postback(s, `subid=${id}`)
    const failed = await settled(id, 'failed')
    const res = await s.api('GET', '/admin/api/jobs?status=failed&kind=source_postback', undefined, cookie)
    expect(res.status).toBe(200)
    const item = res.body.items.find((j: { id: number }) => j.id === failed.id)
    expect(item).toEqual({
      id: failed.id, kind: 'source_postback', payload: JSON.parse(failed.payload), status: 'failed', attempts: 1, max_attempts: 3,
      section: 'conversions', ref: null, last_error: failed.last_error, result: null, next_run_at: expect.any(String), created_at: expect.any(String), updated_at: expect.any(String),
    })
    expect(res.body.items.every((j: { status: string }) => j.status === 'failed')).toBe(true)
    expect((await s.api('GET', '/admin/api/jobs?kind=nope', undefined, cookie)).body.items).toEqual([])
    const all = (await s.api('GET', '/admin/api/jobs', undefined, cookie)).body.items.map((j: { id: number }) => j.id)
    expect(all).toEqual([...all].sort((a, b) => b - a))
    expect((await s.api('GET', `/admin/api/jobs/${failed.id}`, undefined, cookie)).body).toEqual(item)
  })

  test('POST /:id/retry puts a failed job back to pending, due now; it then completes', async () => {
    let fail = true
    const l = listen(() => new Response('', { status: fail ? 410 : 200 }))
    const id = await clickForwardingTo(l)
    await postback(s, `subid=${id}`)
    const failed = await settled(id, 'failed')
    fail = false
    const res = await s.api('POST', `/admin/api/jobs/${failed.id}/retry`, undefined, cookie)
    expect(res.status).toBe(200)
    expect(res.body.id).toBe(failed.id)
    const done = await settled(id, 'done')
    expect(done.attempts).toBe(2)
    const again = await s.api('POST', `/admin/api/jobs/${failed.id}/retry`, undefined, cookie)
    expect(again.status).toBe(409)
    expect(again.body.error).toBe(`job ${failed.id} is done; only failed jobs can be retried`)
  })

  test('unknown ids are 404, a bad status filter is 400, and a session is needed', async () => {
    expect((await s.api('GET', '/admin/api/jobs/999999', undefined, cookie)).status).toBe(404)
    expect((await s.api('GET', '/admin/api/jobs/abc', undefined, cookie)).status).toBe(404)
    expect((await s.api('POST', '/admin/api/jobs/999999/retry', undefined, cookie)).status).toBe(404)
    const bad = await s.api('GET', '/admin/api/jobs?status=broken', undefined, cookie)
    expect(bad.status).toBe(400)
    expect(bad.body.error).toStartWith('status:')
    expect((await s.api('GET', '/admin/api/jobs', undefined, '')).status).toBe(401)
  })
})

describe('GET /admin/api/jobs?conversion_id=', () => {
  test('lists the forwarded postbacks of that conversion only; a bad id is a 400 naming the field', async () => {
    const l = listen(() => new Response('ok'))
    const a = await clickForwardingTo(l, '/pb?cid={click_id}&n=a')
    const b = await clickForwardingTo(l, '/pb?cid={click_id}&n=b')
    expect((await postback(s, `subid=${a}&payout=1`)).status).toBe(200)
    expect((await postback(s, `subid=${b}&payout=2`)).status).toBe(200)
    const convA = (await conversionsOf(s, a))[0]!
    await l.waitFor(2)
    const res = await s.api('GET', `/admin/api/jobs?conversion_id=${convA.id}`)
    expect(res.status).toBe(200)
    expect(res.body.items.map((j: any) => [j.kind, j.payload.conversion_id])).toEqual([['source_postback', convA.id]])
    expect(res.body.items[0].payload.url).toContain('n=a')
    expect((await s.api('GET', '/admin/api/jobs?conversion_id=99999999')).body.items).toEqual([])
    const bad = await s.api('GET', '/admin/api/jobs?conversion_id=x')
    expect({ status: bad.status, body: bad.body }).toEqual({ status: 400, body: { error: 'conversion_id: must be a whole number' } })
  })
})
