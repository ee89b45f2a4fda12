// What an operator reads: the start line, one line per unexpected error (its request id also in the 500),
// per failed outbound job (host only), the opt-in access log, both formats, and no secret anywhere.
// Each server runs as `svc serve` in a child process; its stdout and stderr are the log under test.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Database } from 'bun:sqlite'
import { SQL, type Server } from 'bun'
import { startChild, type ChildServer } from '../helpers/child-server'
import { engineEnv } from '../helpers/server'
import { redactUrl } from '../../src/db/pg/client'
import { VERSION } from '../../src/version'

const SECRET = 'logs-test-master-secret-0123456789'
const OWNER = { email: 'owner@example.com', password: 'owner-password-LOG-7f3a' }
const POSTBACK_SECRET = 'pb-secret-LOG-9c1e5d7b'
const SOURCE_TOKEN = 'src-token-LOG-4b2a'
const TIMEOUT = 30_000

/** The engine of each data directory: nothing on SQLite, SVC_DATABASE_URL under `test:pg` (from engineEnv). */
const engines = new Map<string, Record<string, string>>()
async function useEngine(dir: string) {
  engines.set(dir, await engineEnv(dir))
}

/** Where the start line says the data is: data_dir on SQLite, the database URL (password redacted) on Postgres. */
function whereOf(dir: string): { key: 'data_dir' | 'database'; value: string } {
  const url = engines.get(dir)?.SVC_DATABASE_URL
  return url ? { key: 'database', value: redactUrl(url) } : { key: 'data_dir', value: resolve(dir) }
}

/** A trigger that makes the database refuse conversions with transaction id "boom", on either engine. */
async function refuseBoom(dir: string) {
  const url = engines.get(dir)?.SVC_DATABASE_URL
  if (!url) {
    const db = new Database(join(dir, 'svc.db'))
    // The server may be writing (a rollup, the job loop): wait for its lock instead of failing with SQLITE_BUSY.
    db.exec('PRAGMA busy_timeout = 10000')
    db.exec("CREATE TRIGGER refuse_boom BEFORE INSERT ON conversions WHEN NEW.transaction_id = 'boom' BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
    db.close()
    return
  }
  const sql = new SQL(url, { max: 1 })
  try {
    await sql.unsafe(`CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.transaction_id = 'boom' THEN RAISE EXCEPTION 'disk says no'; END IF; RETURN NEW; END $$`)
    await sql.unsafe('CREATE TRIGGER refuse_boom BEFORE INSERT ON conversions FOR EACH ROW EXECUTE FUNCTION refuse_boom()')
  } finally {
    await sql.close()
  }
}

const baseEnv = (dir: string): Record<string, string> => ({
  ...engines.get(dir),
  SVC_DATA_DIR: dir,
  SVC_SECRET: SECRET,
  SVC_ADMIN_EMAIL: OWNER.email,
  SVC_ADMIN_PASSWORD: OWNER.password,
  SVC_JOBS_POLL_MS: '50',
  SVC_JOBS_BACKOFF_MS: '1000',
})

async function login(base: string): Promise<string> {
  const res = await fetch(`${base}/admin/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(OWNER),
  })
  expect(res.status).toBe(200)
  return res.headers.getSetCookie().find((c) => c.startsWith('svc_admin_session='))!.split(';')[0]!
}

async function api(base: string, cookie: string, method: string, path: string, body: unknown) {
  const res = await fetch(`${base}${path}`, { method, headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  expect(res.status).toBeLessThan(300)
  return (await res.json()) as { id: number }
}

/** A source forwarding to `postbackUrl`, an offer and a campaign; returns the campaign's slug. */
async function seedCampaign(base: string, cookie: string, tag: string, postbackUrl: string): Promise<string> {
  const source = await api(base, cookie, 'POST', '/admin/api/sources', { name: `Source ${tag}`, postback_url: postbackUrl })
  const offer = await api(base, cookie, 'POST', '/admin/api/offers', { name: `Offer ${tag}`, slug: `offer-${tag}`, url: 'https://adv.example/?c={click_id}' })
  await api(base, cookie, 'POST', '/admin/api/campaigns', { name: `Campaign ${tag}`, slug: `campaign-${tag}`, source_id: source.id, offer_id: offer.id })
  return `campaign-${tag}`
}

/** A click through /c; returns its click_id (from the offer URL it redirects to). */
async function click(base: string, slug: string): Promise<string> {
  const res = await fetch(`${base}/c/${slug}?sub1=visitor-data`, { redirect: 'manual' })
  expect(res.status).toBe(302)
  return new URL(res.headers.get('location')!).searchParams.get('c')!
}

describe('text log (the default), access log off', () => {
  let dir: string
  let s: ChildServer
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-logs-'))
    await useEngine(dir)
    s = await startChild(baseEnv(dir))
  }, TIMEOUT)
  afterAll(async () => {
    await s.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  test('one start line on stdout: version, address, data directory, public URL, SMTP, signing, access log', () => {
    const start = s.lines.find((l) => l.text.includes('svc started'))!
    expect(start.stream).toBe('stdout')
    expect(start.text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO  svc started /)
    const port = new URL(s.base).port
    expect(start.text.slice(start.text.indexOf('svc started'))).toBe(
      `svc started version=${VERSION} address=http://127.0.0.1:${port} ${whereOf(dir).key}=${whereOf(dir).value} ` +
        'public_url="not set" smtp="not configured" mail_from="none (mail waits in the outbox as unsent)" postback_signing=off access_log=off ip_data="embedded, 2026-06-17"',
    )
  })

  test('an unexpected error: a 500 with x-request-id, and one error line with the same id, path only', async () => {
    const cookie = await login(s.base)
    const slug = await seedCampaign(s.base, cookie, 'boom', 'https://src.example/pb?cid={click_id}')
    const clickId = await click(s.base, slug)
    // A database that refuses one conversion: the store throws something that is not an AppError.
    await refuseBoom(dir)
    const from = s.lines.length
    const res = await fetch(`${s.base}/postback?subid=${clickId}&tid=boom`)
    expect(res.status).toBe(500)
    expect(await res.json()).toEqual({ error: 'internal error' })
    const id = res.headers.get('x-request-id')!
    expect(id).toMatch(/^[A-Za-z0-9_-]{8}$/)
    const line = await s.waitFor((l) => l.includes(`request_id=${id}`), 5000, from)
    // Bun's PostgresError is raised from native code after an await: it has no JavaScript frames to log.
    const stack = engines.get(dir)?.SVC_DATABASE_URL ? '' : ' stack=".+"'
    expect(line).toMatch(new RegExp(`Z ERROR unexpected error request_id=${id} method=GET path=/postback error="disk says no"${stack}$`))
    expect(s.lines.find((l) => l.text === line)!.stream).toBe('stderr')
    expect(s.output()).not.toContain(clickId)
    // Another failure, another id.
    const again = await fetch(`${s.base}/postback?subid=${clickId}&tid=boom`)
    expect(again.status).toBe(500)
    expect(again.headers.get('x-request-id')).not.toBe(id)
  }, TIMEOUT)

  test('a refused outbound job: one error line with kind, target host (no path, no query), attempt and the error', async () => {
    const cookie = await login(s.base)
    const slug = await seedCampaign(s.base, cookie, 'refused', `http://127.0.0.1:9/pb?cid={click_id}&token=${SOURCE_TOKEN}`)
    const clickId = await click(s.base, slug)
    const from = s.lines.length
    expect((await fetch(`${s.base}/postback?subid=${clickId}`)).status).toBe(200)
    const line = await s.waitFor(/job failed/, 5000, from)
    expect(line).toMatch(
      /Z ERROR job failed job=\d+ kind=source_postback target=127\.0\.0\.1:9 attempt=1\/8 outcome="failed, not retryable" error="refused: /,
    )
    expect(line).not.toContain(SOURCE_TOKEN)
    expect(line).not.toContain(clickId)
  }, TIMEOUT)

  test('with the access log off, requests write nothing', async () => {
    await fetch(`${s.base}/healthz`)
    await fetch(`${s.base}/c/no-such-campaign`)
    await fetch(`${s.base}/postback?subid=nothing`)
    await Bun.sleep(100)
    expect(s.output()).not.toMatch(/ request method=/)
    expect(s.output()).toContain('access_log=off')
  })
})

describe('JSON log with the access log on', () => {
  let dir: string
  let s: ChildServer
  let source: Server<unknown>
  const env = () => ({
    ...baseEnv(dir),
    SVC_LOG_FORMAT: 'json',
    SVC_LOG_REQUESTS: '1',
    SVC_OUTBOUND_ALLOW_PRIVATE: '1',
    SVC_PUBLIC_URL: 'https://track.example/',
    SVC_SMTP_URL: 'smtp://mailer:smtp-password-LOG@mail.example:587',
  })
  const json = () => s.lines.map((l) => JSON.parse(l.text) as Record<string, unknown>)

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-logs-'))
    await useEngine(dir)
    source = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('busy', { status: 503 }) })
    s = await startChild(env())
  }, TIMEOUT)
  afterAll(async () => {
    await s.stop()
    source.stop(true)
    rmSync(dir, { recursive: true, force: true })
  })

  test('every line is one JSON object with time, level and msg; the start line carries the fields', () => {
    const lines = json()
    for (const l of lines) {
      expect(typeof l.time).toBe('string')
      expect(new Date(l.time as string).toISOString()).toBe(l.time as string)
      expect(['info', 'warn', 'error']).toContain(l.level as string)
      expect(typeof l.msg).toBe('string')
    }
    const { time: _t, ...start } = lines.find((l) => l.msg === 'svc started')!
    expect(start).toEqual({
      level: 'info',
      msg: 'svc started',
      version: VERSION,
      address: s.base,
      [whereOf(dir).key]: whereOf(dir).value,
      public_url: 'https://track.example',
      smtp: 'configured',
      mail_from: 'noreply@track.example (from SVC_PUBLIC_URL)',
      postback_signing: 'off',
      access_log: 'on',
      ip_data: 'embedded, 2026-06-17',
    })
  })

  test('access log: one line per request (method, path without query, status, ms, client address), /c included', async () => {
    const cookie = await login(s.base)
    const slug = await seedCampaign(s.base, cookie, 'json', `http://127.0.0.1:${source.port}/pb?cid={click_id}&token=${SOURCE_TOKEN}`)
    // Elysia's lines are written once the answer is handed over, so this one may trail its response.
    const created = JSON.parse(await s.waitFor((l) => l.includes('"path":"/admin/api/campaigns"')))
    expect([created.method, created.status]).toEqual(['POST', 201])
    const from = s.lines.length
    await click(s.base, slug)
    await fetch(`${s.base}/admin/api/nothing-here`, { headers: { cookie } })
    await fetch(`${s.base}/postback?subid=unknown-click&payout=5`)
    await s.waitFor((l) => l.includes('"path":"/postback"'), 5000, from)
    const requests = json()
      .slice(from)
      .filter((l) => l.msg === 'request')
      .map(({ time: _t, ms, ...rest }) => {
        expect(typeof ms).toBe('number')
        return rest
      })
    expect(requests).toEqual([
      { level: 'info', msg: 'request', method: 'GET', path: `/c/${slug}`, status: 302, ip: '127.0.0.1' },
      { level: 'info', msg: 'request', method: 'GET', path: '/admin/api/nothing-here', status: 404, ip: '127.0.0.1' },
      { level: 'info', msg: 'request', method: 'GET', path: '/postback', status: 200, ip: '127.0.0.1' },
    ])
  }, TIMEOUT)

  test('a failed outbound attempt that will be retried: a warning with kind, host, attempt, delay and error', async () => {
    const cookie = await login(s.base)
    const slug = await seedCampaign(s.base, cookie, 'retry', `http://127.0.0.1:${source.port}/pb?cid={click_id}&token=${SOURCE_TOKEN}`)
    const clickId = await click(s.base, slug)
    const from = s.lines.length
    expect((await fetch(`${s.base}/postback?subid=${clickId}`)).status).toBe(200)
    const line = JSON.parse(await s.waitFor(/job attempt failed/, 5000, from))
    expect(line).toMatchObject({
      level: 'warn',
      msg: 'job attempt failed',
      kind: 'source_postback',
      target: `127.0.0.1:${source.port}`,
      attempt: '1/8',
      outcome: 'will retry',
    })
    expect(line.retry_in_s).toBeGreaterThanOrEqual(1)
    expect(line.error).toStartWith('HTTP 503')
    expect(JSON.stringify(line)).not.toContain(clickId)
  }, TIMEOUT)

  test('never logged: the password, the session cookie, the postback signature, stored secrets, query strings', async () => {
    const cookie = await login(s.base)
    const settings = await fetch(`${s.base}/admin/api/settings`, {
      method: 'PUT',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ postback_secret: POSTBACK_SECRET }),
    })
    expect(settings.status).toBe(200)
    const slug = await seedCampaign(s.base, cookie, 'signed', `http://127.0.0.1:${source.port}/pb?cid={click_id}&token=${SOURCE_TOKEN}`)
    const clickId = await click(s.base, slug)
    const sig = createHmac('sha256', POSTBACK_SECRET).update(`${clickId}|approved|12.50|T-LOG`).digest('hex')
    const from = s.lines.length
    const ok = await fetch(`${s.base}/postback?subid=${clickId}&status=approved&payout=12.50&tid=T-LOG&sig=${sig}`)
    expect(ok.status).toBe(200)
    const forged = await fetch(`${s.base}/postback?subid=${clickId}&status=approved&payout=999&sig=${'ab'.repeat(32)}`)
    expect(forged.status).toBe(401)
    await s.waitFor((l) => l.includes('"status":401'), 5000, from)
    await s.waitFor(/job attempt failed/, 5000, from)

    const out = s.output()
    expect(out).toContain('"path":"/postback"')
    expect(out).toContain('"path":"/admin/api/login"')
    for (const secret of [
      OWNER.password, cookie.split('=')[1]!, sig, 'ab'.repeat(32), POSTBACK_SECRET, SOURCE_TOKEN, SECRET, 'smtp-password-LOG',
      'sig=', 'subid=', 'sub1=', 'visitor-data', 'T-LOG',
    ]) {
      expect(out).not.toContain(secret)
    }
  }, TIMEOUT)

  test('after a restart: signing shows on, the access log off writes no request line, stop lines on SIGTERM', async () => {
    expect(await s.stop()).toBe(0)
    // A job attempt in flight may end (and log) between the two: the drain waits for it.
    expect(json().filter((l) => l.msg !== 'job attempt failed').slice(-2).map((l) => [l.msg, l.signal])).toEqual([
      ['stopping: finishing in-flight work', 'SIGTERM'],
      ['stopped cleanly', undefined],
    ])
    s = await startChild({ ...env(), SVC_LOG_REQUESTS: '' })
    const start = json().find((l) => l.msg === 'svc started')!
    expect([start.postback_signing, start.access_log]).toEqual(['on', 'off'])
    expect((await fetch(`${s.base}/healthz`)).status).toBe(200)
    expect((await fetch(`${s.base}/c/no-such-campaign`)).status).toBe(404)
    await Bun.sleep(100)
    expect(json().filter((l) => l.msg === 'request')).toEqual([])
  }, TIMEOUT)
})
