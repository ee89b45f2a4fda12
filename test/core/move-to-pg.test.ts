// `svc migrate --to postgres://…`: an SQLite installation built through the real server, copied by the CLI
// into a throwaway PostgreSQL database, must read back row for row (issue 8).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { Database as BunDatabase } from 'bun:sqlite'
import { SQL } from 'bun'
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core'
import { is } from 'drizzle-orm'
import { startServer, get, TEST_ENV, type TestServer } from '../helpers/server'
import { svc, emptyDir, serveChild } from '../helpers/cli'
import { pgAvailable, freshPgUrl } from '../helpers/pg'
import { copyPlan, moveToPg } from '../../src/db/move-to-pg'
import { openPg } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import * as pgSchema from '../../src/db/pg-schema'

const SECRET = TEST_ENV.SVC_SECRET!

/** Columns that are int8 on Postgres: Bun returns them as strings, SQLite as numbers. */
const BIGINT = new Map(
  Object.values(pgSchema).filter((t) => is(t, PgTable)).map((t) => {
    const c = getTableConfig(t as PgTable)
    return [c.name, new Set(c.columns.filter((col) => col.getSQLType() === 'bigint').map((col) => col.name))] as const
  }),
)

type Row = Record<string, unknown>
const byKey = (key: string[]) => (a: Row, b: Row) => {
  for (const k of key) {
    const x = a[k] as number | string
    const y = b[k] as number | string
    if (x !== y) return x < y ? -1 : 1
  }
  return 0
}

function sqliteRows(dbPath: string, table: string, key: string[]): Row[] {
  const db = new BunDatabase(dbPath, { readonly: true })
  try {
    return (db.prepare(`SELECT * FROM "${table}"`).all() as Row[]).sort(byKey(key))
  } finally {
    db.close()
  }
}

/** The copied columns only: a column only Postgres has (the rollups' shard) keeps its default, checked apart. */
async function pgRows(sql: SQL, table: string, key: string[], columns: string[]): Promise<Row[]> {
  const ints = BIGINT.get(table)!
  const rows = (await sql`SELECT * FROM ${sql(table)}`) as Row[]
  // Plain objects with int8 as numbers, as svc's stores read them (numCols).
  return rows.map((r) => Object.fromEntries(Object.entries(r).filter(([c]) => columns.includes(c)).map(([c, v]) => [c, ints.has(c) && v !== null ? Number(v) : v]))).sort(byKey(key))
}

async function eventually<T>(fn: () => T | undefined, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = fn()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(25)
  }
}

describe.skipIf(!pgAvailable().ok)('svc migrate --to postgres://', () => {
  let s: TestServer
  let dir: string
  let dbPath: string
  const sqls: SQL[] = []
  const connect = (url: string) => {
    const sql = new SQL(url, { max: 1 })
    sqls.push(sql)
    return sql
  }

  // What is moved is an SQLite installation, under `test:pg` as well: SVC_DATABASE_URL '' keeps the
  // source server on its SQLite file whatever engine the other tests run on.
  const SOURCE_ENV = { SVC_OUTBOUND_ALLOW_PRIVATE: '1', SVC_JOBS_MAX_ATTEMPTS: '1', SVC_DATABASE_URL: '' }

  beforeAll(async () => {
    // A source whose postback URL nobody listens on: its forward job fails (one attempt).
    s = await startServer(SOURCE_ENV)
    dir = s.dataDir
    dbPath = join(dir, 'svc.db')
    const ok = async (method: string, path: string, body: unknown) => {
      const res = await s.api(method, path, body)
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`)
      return res.body
    }
    const source = await ok('POST', '/admin/api/sources', { name: 'Push', postback_url: 'http://127.0.0.1:1/pb?cid={click_id}' })
    await ok('POST', '/admin/api/sources', { name: 'Organic' })
    const offer = await ok('POST', '/admin/api/offers', { name: 'Shop', slug: 'shop', url: 'https://shop.example/?sub={click_id}', payout: 2.5 })
    const landing = await ok('POST', '/admin/api/landings', { name: 'Page', slug: 'page', html: '<h1>Hi ☃</h1>' })
    await ok('POST', '/admin/api/campaigns', { name: 'Direct', slug: 'direct', source_id: source.id, offer_id: offer.id, cost_model: 'cpc', cpc: 0.25 })
    await ok('POST', '/admin/api/campaigns', { name: 'Lander', slug: 'lander', offer_id: offer.id, landing_id: landing.id })
    await ok('POST', '/admin/api/users', { email: 'second@example.com', password: 'second-password-1' })
    await ok('POST', '/admin/api/conversion-types', { slug: 'upsell', name: 'Upsell' })
    await ok('PUT', '/admin/api/settings', { ecom_a_webhook_secret: 'webhook-secret-value-1', bot_clicks_per_minute: 120 })

    for (let i = 0; i < 12; i++) {
      const res = await get(`${s.base}/c/${i % 3 ? 'direct' : 'lander'}?sub1=s${i}&utm_source=fb`, { 'user-agent': `Mozilla/5.0 test ${i}` })
      expect(res.status).toBeLessThan(400)
    }
    await s.server.stop() // flushes the click writer
    s = await startServer(SOURCE_ENV, dir)
    const direct = sqliteRows(dbPath, 'clicks', ['id']).filter((c) => c.source_id !== null)
    expect(direct.length).toBeGreaterThan(3)
    for (const c of direct.slice(0, 3)) {
      expect((await fetch(`${s.base}/postback?subid=${c.click_id}&status=approved&payout=9.5&tid=T-${c.id}`)).status).toBe(200)
    }
    await fetch(`${s.base}/postback?subid=${crypto.randomUUID()}&status=approved`) // a postback error
    await eventually(() => {
      const db = new BunDatabase(dbPath, { readonly: true })
      try {
        return (db.prepare("SELECT count(*) AS n FROM jobs WHERE status = 'failed'").get() as { n: number }).n >= 1 ? true : undefined
      } finally {
        db.close()
      }
    }, 15_000, 'a failed forward job')
    await s.stop()
  }, 60_000)

  afterAll(async () => {
    for (const sql of sqls) await sql.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  /** Every table reads back equal, full rows ordered by primary key. */
  async function expectSameRows(url: string) {
    const sql = connect(url)
    for (const t of copyPlan()) {
      const want = sqliteRows(dbPath, t.name, t.key)
      expect({ table: t.name, rows: await pgRows(sql, t.name, t.key, t.columns) }).toEqual({ table: t.name, rows: want })
    }
    // SQLite's rollups have one writer and no shards: every copied row is shard 0.
    for (const table of ['conversion_stats_hourly', 'conversion_stats_daily']) {
      const [r] = await sql`SELECT count(*)::int AS n, count(*) FILTER (WHERE shard = 0)::int AS zero FROM ${sql(table)}`
      expect({ table, n: r.n > 0, zero: r.zero }).toEqual({ table, n: true, zero: r.n })
    }
  }

  test('the installation is populated in every table that matters (so the comparison below means something)', () => {
    const count = (t: string, where = '1') => {
      const db = new BunDatabase(dbPath, { readonly: true })
      try {
        return (db.prepare(`SELECT count(*) AS n FROM ${t} WHERE ${where}`).get() as { n: number }).n
      } finally {
        db.close()
      }
    }
    expect(count('clicks')).toBe(12)
    expect(count('conversions')).toBe(3)
    expect(count('jobs', "status = 'failed'")).toBeGreaterThanOrEqual(1)
    expect(count('postback_errors')).toBeGreaterThanOrEqual(1)
    expect(count('users')).toBe(2)
    expect(count('settings', 'encrypted = 1')).toBe(1)
    expect(count('conversion_types', "slug = 'upsell'")).toBe(1)
    for (const t of ['campaign_offers', 'campaign_landings', 'click_stats_hourly', 'click_stats_daily', 'conversion_stats_hourly', 'conversion_stats_daily']) {
      expect({ t, n: count(t) > 0 }).toEqual({ t, n: true })
    }
  })

  let url: string
  test('copies every table row for row, prints the counts and the SVC_SECRET reminder', async () => {
    url = await freshPgUrl()
    const r = svc(['migrate', '--to', url], { SVC_DATA_DIR: dir, SVC_SECRET: SECRET })
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^clicks\s+12\s+12$/m)
    expect(r.out).toMatch(/^users\s+2\s+2$/m)
    expect(r.out).toContain('same SVC_SECRET')
    // Then statistics and the visibility map, at once rather than by autovacuum under traffic.
    expect(r.out).toMatch(/^vacuumed and analyzed in \d+\.\d s$/m)
    const pg = new SQL(url, { max: 1 })
    try {
      const [t] = await pg.unsafe("SELECT last_vacuum IS NOT NULL AS vacuumed, last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname = 'conversions'")
      expect({ vacuumed: t.vacuumed, analyzed: t.analyzed }).toEqual({ vacuumed: true, analyzed: true })
    } finally {
      await pg.close()
    }
    await expectSameRows(url)
  }, 30_000)

  test('identity sequences continue after the largest copied id', async () => {
    const sql = connect(url)
    const [src] = await sql`INSERT INTO sources (name, created_at, updated_at) VALUES ('new', 1, 1) RETURNING id`
    expect(src.id).toBe(3)
    const [job] = await sql`INSERT INTO jobs (kind, payload, max_attempts, next_run_at, created_at, updated_at) VALUES ('x', '{}', 1, 1, 1, 1) RETURNING id`
    const maxJob = sqliteRows(dbPath, 'jobs', ['id']).at(-1)!.id as number
    expect(Number(job.id)).toBe(maxJob + 1)
    for (const table of ['users', 'campaigns', 'offers', 'landings', 'clicks', 'conversions', 'postback_errors']) {
      const max = sqliteRows(dbPath, table, ['id']).at(-1)!.id as number
      const [{ n }] = await sql`SELECT nextval(pg_get_serial_sequence(${`"${table}"`}, 'id'))::int AS n`
      expect({ table, next: n }).toEqual({ table, next: max + 1 })
    }
  })

  test('a second run refuses: the target is not empty (the table is named), and nothing changes', async () => {
    const r = svc(['migrate', '--to', url], { SVC_DATA_DIR: dir, SVC_SECRET: SECRET })
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/^error: the PostgreSQL database .* is not empty: table \w+ has \d+ rows?/)
    expect(r.err.trim().split('\n')).toHaveLength(1)
    const [{ n }] = await connect(url)`SELECT count(*)::int AS n FROM clicks`
    expect(n).toBe(12)
  }, 30_000)

  test('small pages copy the same rows (keyset paging over single, text and composite keys)', async () => {
    const fresh = await freshPgUrl()
    const lines: string[] = []
    const counts = await moveToPg({ dataDir: dir, dbPath, url: fresh, env: { SVC_SECRET: SECRET }, out: (l) => lines.push(l), pageRows: 2 })
    expect(counts.find((c) => c.table === 'clicks')).toEqual({ table: 'clicks', sqlite: 12, postgres: 12 })
    await expectSameRows(fresh)
  }, 30_000)

  test('differing row counts exit 1, mark the table, and roll everything back', async () => {
    const target = await freshPgUrl()
    const db = await openPg(target)
    await migratePg(db)
    // A rule (which DISABLE TRIGGER does not switch off) silently drops one source row.
    await db.sql`CREATE RULE drop_one AS ON INSERT TO sources WHERE NEW.id = 2 DO INSTEAD NOTHING`
    await db.close()
    const r = svc(['migrate', '--to', target], { SVC_DATA_DIR: dir, SVC_SECRET: SECRET })
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/^sources\s+2\s+1  !$/m)
    expect(r.out).toMatch(/^clicks\s+12\s+12$/m)
    expect(r.err).toBe('error: the row counts differ (marked with ! above): nothing was written, the transaction was rolled back\n')
    const sql = connect(target)
    const [{ n }] = await sql`SELECT (SELECT count(*) FROM clicks) + (SELECT count(*) FROM users) AS n`
    expect(Number(n)).toBe(0)
  }, 30_000)

  test('a role that does not own the tables fails with one line and leaves them empty', async () => {
    const target = await freshPgUrl()
    const db = await openPg(target)
    await migratePg(db)
    const role = `limited_${crypto.randomUUID().slice(0, 8)}`
    const u0 = new URL(target)
    await db.sql.unsafe(`CREATE ROLE ${role} LOGIN; GRANT CREATE ON DATABASE ${u0.pathname.slice(1)} TO ${role}; GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role}; GRANT ALL ON SCHEMA public, drizzle TO ${role}; GRANT ALL ON ALL TABLES IN SCHEMA drizzle TO ${role}`)
    await db.close()
    const u = new URL(target)
    u.username = role
    const r = svc(['migrate', '--to', u.toString()], { SVC_DATA_DIR: dir, SVC_SECRET: SECRET })
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/^error: copying into .* failed, nothing was written \(the transaction was rolled back\): must be owner of table \w+ \(connect as the role that owns the svc tables\)$/m)
    expect(r.err.trim().split('\n')).toHaveLength(1)
    const [{ n }] = await connect(target)`SELECT count(*)::int AS n FROM sources`
    expect(n).toBe(0)
  }, 30_000)

  test('a bad URL fails with one clear line that never shows the password', async () => {
    const password = 'hunter2-very-secret'
    const unreachable = svc(['migrate', '--to', `postgres://svc:${password}@127.0.0.1:1/nope`], { SVC_DATA_DIR: dir })
    expect(unreachable.code).toBe(1)
    expect(unreachable.err).toMatch(/^error: PostgreSQL at 127\.0\.0\.1:1\/nope unreachable/)
    expect(unreachable.err.trim().split('\n')).toHaveLength(1)
    const scheme = svc(['migrate', '--to', `mysql://svc:${password}@127.0.0.1/db`], { SVC_DATA_DIR: dir })
    expect(scheme.code).toBe(1)
    expect(scheme.err).toBe('error: --to must be a postgres:// URL (got mysql://)\n')
    for (const r of [unreachable, scheme]) expect(r.out + r.err).not.toContain(password)
    const missing = svc(['migrate', '--to'], { SVC_DATA_DIR: dir })
    expect(missing.code).toBe(2)
    expect(missing.err).toContain('--to needs a value')
  }, 30_000)

  test('refused while a server runs on the data directory ("stop the server first"); the target stays untouched', async () => {
    const server = await serveChild({ SVC_DATA_DIR: dir, SVC_SECRET: SECRET })
    try {
      const target = await freshPgUrl()
      const r = svc(['migrate', '--to', target], { SVC_DATA_DIR: dir, SVC_SECRET: SECRET })
      expect(r.code).toBe(1)
      expect(r.err).toContain(`data directory ${dir} is in use by a running svc server (pid ${server.proc.pid}): stop the server first`)
      const [{ n }] = await connect(target)`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`
      expect(n).toBe(0)
    } finally {
      expect(await server.stop()).toBe(0)
    }
  }, 30_000)

  test('a data directory without a database is refused', () => {
    const empty = emptyDir()
    const r = svc(['migrate', '--to', 'postgres://svc@127.0.0.1:1/x'], { SVC_DATA_DIR: empty })
    expect(r.code).toBe(1)
    expect(r.err).toStartWith(`error: no database at ${join(empty, 'svc.db')}`)
    rmSync(empty, { recursive: true, force: true })
  })

  test('an installation keyed by secret.key is told where its secret is', async () => {
    const own = emptyDir()
    expect(svc(['migrate'], { SVC_DATA_DIR: own }).code).toBe(0)
    const r = svc(['migrate', '--to', await freshPgUrl()], { SVC_DATA_DIR: own })
    expect(r.code).toBe(0)
    expect(r.out).toContain(`the content of ${join(own, 'secret.key')}: run every PostgreSQL instance with SVC_SECRET set to it`)
    // The seeded conversion types and status map of a fresh install replace the Postgres seed rows.
    expect(r.out).toMatch(/^conversion_types\s+6\s+6$/m)
    expect(r.out).toMatch(/^status_map\s+6\s+6$/m)
    rmSync(own, { recursive: true, force: true })
  }, 30_000)
})
