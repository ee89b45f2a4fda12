// The CLI with SVC_DATABASE_URL (issue 8): migrate, user add/passwd and serve work on PostgreSQL, say where
// they are without the password, keep nothing in a data directory, and refuse what only SQLite does
// (svc backup). Runs in `bun test` and `test:pg` alike whenever a PostgreSQL cluster can be started.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { SQL } from 'bun'
import { emptyDir, serveChild, svc } from '../helpers/cli'
import { freshPgUrl, pgAvailable, pgCluster } from '../helpers/pg'
import { TEST_ENV } from '../helpers/server'

// Each test runs svc as child processes (about 0.5 s each alone, several times that on a loaded machine): the
// user test (four CLI runs and a server) takes 7 s alone, 10-22 s in CI runs and once passed 30 s.
setDefaultTimeout(90_000)

const pg = pgAvailable()
if (!pg.ok) console.warn(`skipping the CLI tests on PostgreSQL: ${pg.why}`)

/** The test cluster trusts every local connection, so any password gets in: one we can look for in the output. */
const PASSWORD = 'Pg-Pass-w0rd-never-printed'

/** Exactly one line, no stack frames, no source excerpt. */
function oneLine(err: string): string {
  const lines = err.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toStartWith('error: ')
  return lines[0]!
}

describe.skipIf(!pg.ok)('svc with SVC_DATABASE_URL', () => {
  let url: string
  let redacted: string
  /** The working directory of every command: ./data, the default data directory, must never appear in it. */
  let cwd: string
  let env: Record<string, string>
  const dirs: string[] = []

  beforeAll(async () => {
    const plain = new URL(await freshPgUrl())
    plain.password = PASSWORD
    url = plain.toString()
    redacted = url.replace(PASSWORD, '***')
    cwd = emptyDir()
    dirs.push(cwd)
    env = { SVC_DATABASE_URL: url, SVC_SECRET: TEST_ENV.SVC_SECRET! }
  })
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })

  const run = (args: string[], extra: Record<string, string> = {}, stdin?: string) => {
    const r = svc(args, { ...env, ...extra }, { cwd, stdin })
    expect(r.out + r.err).not.toContain(PASSWORD)
    return r
  }

  test('migrate migrates the database and says it is up to date, twice, without the password', async () => {
    // As on SQLite, a database without users gets the notice saying how to create the owner.
    const first = run(['migrate'])
    expect(first).toEqual({ code: 0, out: expect.stringMatching(/INFO  no admin user yet: .*\n/), err: '' })
    expect(first.out).toEndWith(`\ndatabase ${redacted} is up to date\n`)
    const db = new SQL(url, { max: 1 })
    try {
      const types = await db`SELECT slug FROM conversion_types ORDER BY slug`
      expect(types.map((t: { slug: string }) => t.slug)).toEqual(['chargeback', 'install', 'lead', 'reject', 'sale', 'trial'])
    } finally {
      await db.close()
    }
    expect(run(['migrate'])).toEqual({ code: 0, out: expect.stringContaining(`database ${redacted} is up to date\n`), err: '' })
    expect(readdirSync(cwd)).toEqual([]) // no ./data, no secret.key, no lock file
  })

  test('user add and user passwd work on the database; a running server sees the user and the new password', async () => {
    const add = run(['user', 'add', '--email', 'Pg-Cli@Example.com', '--owner'], {}, 'first-password-1\n')
    expect(add.code).toBe(0)
    expect(add.out).toMatch(new RegExp(`\\ncreated user \\d+ pg-cli@example\\.com \\(owner\\) in ${RegExp.escape(redacted)}\\n$`))
    const dup = run(['user', 'add', '--email', 'pg-cli@example.com', '--password', 'long-enough-1'])
    expect(dup.code).toBe(1)
    expect(oneLine(dup.err)).toContain('already exists')

    const server = await serveChild({ ...env, SVC_TRUST_PROXY: '1' }, cwd)
    try {
      let ip = 1
      const login = async (password: string) => (await fetch(`${server.base}/admin/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${ip++}` },
        body: JSON.stringify({ email: 'pg-cli@example.com', password }),
      })).status
      expect(await login('first-password-1')).toBe(200)

      const passwd = run(['user', 'passwd', '--email', 'PG-CLI@example.com'], {}, 'second-password-2\n')
      expect(passwd).toEqual({ code: 0, out: 'password of pg-cli@example.com changed; their sessions are signed out\n', err: '' })
      expect(await login('second-password-2')).toBe(200)
      expect(await login('first-password-1')).toBe(401)

      const unknown = run(['user', 'passwd', '--email', 'nobody@example.com'], {}, 'whatever-long\n')
      expect(unknown).toMatchObject({ code: 1, err: `error: no user with email nobody@example.com in ${redacted}\n` })
    } finally {
      expect(await server.stop()).toBe(0)
    }
    expect(readdirSync(cwd)).toEqual([]) // serve made no data directory and no lock file either
  })

  test('svc backup refuses and points at pg_dump', () => {
    const r = run(['backup', 'out.db'])
    expect(r.code).toBe(1)
    expect(oneLine(r.err)).toContain('pg_dump')
    expect(readdirSync(cwd)).toEqual([])
  })

  test('serve without SVC_SECRET exits 1 saying every instance needs the same secret, and creates nothing', () => {
    const dataDir = join(emptyDir(), 'data')
    dirs.push(dataDir)
    const r = svc(['serve'], { SVC_DATABASE_URL: url, SVC_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0' }, { cwd })
    expect(r.code).toBe(1)
    expect(oneLine(r.err)).toBe('error: SVC_SECRET is required with SVC_DATABASE_URL: set the same secret on every instance')
    expect(r.out + r.err).not.toContain(PASSWORD)
    expect(existsSync(dataDir)).toBe(false)
    expect(readdirSync(cwd)).toEqual([])
  })

  test('an unreachable database: serve, migrate and user add exit 1 with one line naming the host, not the password', async () => {
    // A port nothing listens on: the cluster's own port + 1 is refused almost surely; checked below.
    const { port } = await pgCluster()
    const dead = `postgres://svc:${PASSWORD}@127.0.0.1:${port + 1}/svc`
    for (const args of [['serve'], ['migrate'], ['user', 'add', '--email', 'a@example.com', '--password', 'long-enough-1']]) {
      const r = run(args, { SVC_DATABASE_URL: dead, HOST: '127.0.0.1', PORT: '0' })
      expect(r.code).toBe(1)
      const line = oneLine(r.err)
      expect(line).toContain(`127.0.0.1:${port + 1}`)
      expect(line).toContain('unreachable')
    }
    expect(readdirSync(cwd)).toEqual([])
  })

  test('a URL that is not postgres:// is refused before anything connects, without repeating it', () => {
    const r = run(['migrate'], { SVC_DATABASE_URL: `mysql://svc:${PASSWORD}@127.0.0.1/svc` })
    expect(r.code).toBe(1)
    expect(oneLine(r.err)).toBe('error: SVC_DATABASE_URL must start with postgres:// (got mysql://); leave it unset for the embedded SQLite database')
  })
})
