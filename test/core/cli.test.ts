import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { mkdtempSync, rmSync, existsSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { startServer, TEST_ENV, type TestServer } from '../helpers/server'
import { testDb } from '../helpers/db'
import { onPostgres } from '../helpers/pg'
import { svc, emptyDir, modeOf } from '../helpers/cli'
import { IP_DATA, VERSION } from '../../src/version'
import { loadConfig } from '../../src/config'

// Each test runs svc as child processes (about 0.5 s each alone, several times that on a loaded machine).
setDefaultTimeout(60_000) // CLI child processes: several times slower on a loaded CI machine

let dir: string
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'svc-cli-')) })
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('svc CLI', () => {
  test('version prints the package version', () => {
    const r = svc(['version'])
    expect(r.code).toBe(0)
    const [first, second, ...rest] = r.out.trim().split('\n')
    expect(first).toBe(VERSION)
    // The embedded IP data's date and the attribution its licences ask for.
    expect(second).toStartWith('IP data of 2026-06-17. IP data: country from @ip-location-db/geo-whois-asn-country (CC0')
    expect(second).toContain('IP Geolocation by DB-IP: https://db-ip.com')
    expect(rest).toEqual([])
  })

  test('--version, -h and help work as well', () => {
    expect(svc(['--version'])).toEqual({ code: 0, out: `${VERSION}\n${IP_DATA}\n`, err: '' })
    for (const h of [['-h'], ['help'], ['serve', '--help']]) {
      const r = svc(h)
      expect(r.code).toBe(0)
      expect(r.out).toStartWith('svc — self-hosted click tracker')
      expect(r.out).toContain(IP_DATA)
    }
  })

  test('--help lists every contract command', () => {
    const r = svc(['--help'])
    expect(r.code).toBe(0)
    for (const c of ['serve', 'migrate', 'user add', 'user passwd', 'token create', 'backup', 'version']) expect(r.out).toContain(`  ${c}`)
  })

  test('--help lists every environment variable the configuration reads (the binary ships without README)', () => {
    const read = new Set<string>()
    const dir = emptyDir()
    const env = new Proxy({}, {
      get: (_t, name) => {
        if (typeof name === 'string') read.add(name)
        return name === 'SVC_DATA_DIR' ? dir : undefined
      },
    })
    try {
      loadConfig(env)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    expect(read.size).toBeGreaterThanOrEqual(19)
    const help = svc(['--help']).out
    for (const name of read) expect(help).toMatch(new RegExp(`^  ${name}\\b`, 'm'))
    expect(help).toMatch(/^  SVC_JOBS_CONCURRENCY \[16\]/m)
  })

  test('SVC_SMTP_URL must be an smtp:// or smtps:// URL; the error never echoes the password', () => {
    const dir = emptyDir()
    try {
      const load = (url: string) => () => loadConfig({ SVC_DATA_DIR: dir, SVC_SMTP_URL: url })
      expect(load('http://u:hunter2@relay.example:25')).toThrow('SVC_SMTP_URL must start with smtp:// or smtps:// (got http://)')
      expect(load('not a url hunter2')).toThrow('SVC_SMTP_URL is not a URL (expected smtp://user:password@host:587 or smtps://user:password@host:465)')
      expect(loadConfig({ SVC_DATA_DIR: dir, SVC_SMTP_URL: 'smtps://u:p@relay.example:465' }).smtpUrl).toBe('smtps://u:p@relay.example:465')
      expect(loadConfig({ SVC_DATA_DIR: dir, SVC_SMTP_URL: '' }).smtpUrl).toBeNull()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('an unknown command exits 2 with the help text', () => {
    const r = svc(['frobnicate'])
    expect(r.code).toBe(2)
    expect(r.err).toContain('unknown command: frobnicate')
  })

  // Each of these once started a server on 0.0.0.0:3000 or answered "unknown command".
  const usageErrors: Array<[string[], string]> = [
    [['--bogus'], 'unknown flag --bogus'],
    [['-x'], 'unknown flag -x'],
    [['serve', '--port'], '--port needs a value'],
    [['serve', '--port', '--host', '127.0.0.1'], '--port needs a value'],
    [['serve', '--port', 'x'], '--port must be a whole number, got "x"'],
    [['serve', '--port', '70000'], '--port must be between 0 and 65535, got 70000'],
    [['serve', '--port', '1', '--port', '2'], '--port is given twice'],
    [['serve', 'extra'], 'unexpected argument "extra"'],
    [['migrate', '--port', '1'], 'svc migrate has no --port flag'],
    [['user'], 'missing command after "user" (try svc user add, svc user passwd)'],
    [['user', 'remove'], 'unknown command: user remove (try svc user add, svc user passwd)'],
    [['user', 'add'], '--email is required'],
    [['user', 'add', '--email'], '--email needs a value'],
    [['user', 'add', '--email', 'a@example.com', '--owner=yes'], '--owner takes no value'],
    [['user', 'passwd', '--email', 'a@example.com', '--password', 'x'], 'svc user passwd has no --password flag'],
    [['backup'], 'svc backup: missing FILE, the file to write the copy to'],
    [['backup', 'a.db', 'b.db'], 'unexpected argument "b.db"'],
  ]
  for (const [args, message] of usageErrors) {
    test(`usage error: svc ${args.join(' ')} → exit 2, "${message}"`, () => {
      const cwd = emptyDir()
      try {
        const r = svc(args, {}, { cwd })
        expect(r.code).toBe(2)
        expect(r.err).toStartWith(`error: ${message}\n`)
        expect(r.err).toContain('Usage: svc')
        expect(r.out).toBe('')
        expect(readdirSync(cwd)).toEqual([]) // no ./data: nothing was started or created
      } finally {
        rmSync(cwd, { recursive: true, force: true })
      }
    })
  }

  // The SQLite file, its data directory and secret.key, and a user in that file: SQLite machinery. The same
  // commands on Postgres are in cli-pg.test.ts.
  test.skipIf(onPostgres)('migrate creates the database and a 0600 secret.key when SVC_SECRET is unset', () => {
    const r = svc(['migrate'], { SVC_DATA_DIR: dir })
    expect(r.code).toBe(0)
    expect(existsSync(join(dir, 'svc.db'))).toBe(true)
    const mode = Bun.spawnSync(['stat', '-c', '%a', join(dir, 'secret.key')]).stdout.toString().trim()
    expect(mode).toBe('600')
    const db = new Database(join(dir, 'svc.db'), { readonly: true })
    const types = db.query('SELECT slug FROM conversion_types ORDER BY slug').all() as Array<{ slug: string }>
    db.close()
    expect(types.map((t) => t.slug)).toEqual(['chargeback', 'install', 'lead', 'reject', 'sale', 'trial'])
  })

  test.skipIf(onPostgres)('the database and the data directory are private (0600, 0700); an older 0644 database is tightened', () => {
    expect(modeOf(join(dir, 'svc.db'))).toBe('600')
    expect(modeOf(dir)).toBe('700')
    const old = emptyDir()
    try {
      const db = new Database(join(old, 'svc.db'), { create: true })
      db.run('PRAGMA journal_mode = WAL')
      db.run('CREATE TABLE before_svc (x)')
      db.close()
      Bun.spawnSync(['chmod', '644', join(old, 'svc.db')])
      expect(modeOf(join(old, 'svc.db'))).toBe('644')
      expect(svc(['migrate'], { SVC_DATA_DIR: old }).code).toBe(0)
      expect(modeOf(join(old, 'svc.db'))).toBe('600')
    } finally {
      rmSync(old, { recursive: true, force: true })
    }
  })

  test.skipIf(onPostgres)('user add creates a user; a duplicate email and a short password are refused', () => {
    const ok = svc(['user', 'add', '--email', 'Cli@Example.com', '--password', 'long-enough-1', '--owner'], { SVC_DATA_DIR: dir })
    expect(ok.code).toBe(0)
    expect(ok.out).toContain('cli@example.com (owner)')
    const dup = svc(['user', 'add', '--email', 'cli@example.com', '--password', 'long-enough-1'], { SVC_DATA_DIR: dir })
    expect(dup.code).toBe(1)
    expect(dup.err).toContain('already exists')
    const short = svc(['user', 'add', '--email', 'x@example.com', '--password', 'short'], { SVC_DATA_DIR: dir })
    expect(short.code).toBe(1)
    expect(short.err).toContain('password')
  })

  test('a malformed PORT is a clear configuration error', () => {
    const r = svc(['migrate'], { SVC_DATA_DIR: dir, PORT: 'eighty' })
    expect(r.code).toBe(1)
    expect(r.err).toContain('PORT must be a whole number')
  })
})

// svc backup copies the SQLite file; with SVC_DATABASE_URL it refuses and points at pg_dump (cli-pg.test.ts).
describe.skipIf(onPostgres)('svc backup', () => {
  let s: TestServer
  beforeAll(async () => { s = await startServer() })
  afterAll(() => s.destroy())

  test('copies a live database consistently while the server keeps writing', async () => {
    const db = testDb(s)
    for (let i = 0; i < 200; i++) await db.run('INSERT INTO sources (name, created_at, updated_at) VALUES ($name, 0, 0)', { name: `source ${i}` })
    const target = join(s.dataDir, 'backup-copy.db')
    const r = svc(['backup', target], { SVC_DATA_DIR: s.dataDir, SVC_SECRET: TEST_ENV.SVC_SECRET! })
    expect(r.code).toBe(0)
    const copy = new Database(target, { readonly: true })
    const n = (copy.query('SELECT count(*) AS n FROM sources').get() as { n: number }).n
    const check = (copy.query('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check
    copy.close()
    expect(n).toBe(200)
    expect(check).toBe('ok')
    const again = svc(['backup', target], { SVC_DATA_DIR: s.dataDir, SVC_SECRET: TEST_ENV.SVC_SECRET! })
    expect(again.code).toBe(1)
    expect(again.err).toContain('already exists')
  })

  test('a backup is 0600 and needs neither the secret nor write access to the data (no migration, no owner)', () => {
    const target = join(s.dataDir, 'backup-private.db')
    const r = svc(['backup', target], { SVC_DATA_DIR: s.dataDir })
    expect(r.code).toBe(0)
    expect(r.out).toBe(`backup of ${join(s.dataDir, 'svc.db')} written to ${target}\n`)
    expect(modeOf(target)).toBe('600')
  })

  test('a backup into a missing directory fails in one line and leaves nothing behind', () => {
    const target = join(s.dataDir, 'no-such-dir', 'b.db')
    const r = svc(['backup', target], { SVC_DATA_DIR: s.dataDir })
    expect(r.code).toBe(1)
    expect(r.err.trim().split('\n')).toHaveLength(1)
    expect(r.err).toContain('no-such-dir')
  })
})
