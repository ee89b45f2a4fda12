import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { startServer, TEST_ENV, type TestServer } from '../helpers/server'
import { VERSION } from '../../src/version'

const ROOT = join(import.meta.dir, '..', '..')

function svc(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawnSync([process.execPath, join(ROOT, 'src/index.ts'), ...args], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? '', ...env },
  })
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() }
}

let dir: string
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'svc-cli-')) })
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('svc CLI', () => {
  test('version prints the package version', () => {
    const r = svc(['version'])
    expect(r.code).toBe(0)
    expect(r.out.trim()).toBe(VERSION)
  })

  test('--help lists every contract command', () => {
    const r = svc(['--help'])
    expect(r.code).toBe(0)
    for (const c of ['serve', 'migrate', 'user add', 'token create', 'backup', 'version']) expect(r.out).toContain(c)
  })

  test('an unknown command exits 2 with the help text', () => {
    const r = svc(['frobnicate'])
    expect(r.code).toBe(2)
    expect(r.err).toContain('unknown command: frobnicate')
  })

  test('migrate creates the database and a 0600 secret.key when SVC_SECRET is unset', () => {
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

  test('user add creates a user; a duplicate email and a short password are refused', () => {
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

describe('svc backup', () => {
  let s: TestServer
  beforeAll(async () => { s = await startServer() })
  afterAll(() => s.destroy())

  test('copies a live database consistently while the server keeps writing', async () => {
    const raw = s.ctx.database.raw
    const insert = raw.prepare("INSERT INTO sources (name, created_at, updated_at) VALUES ($name, 0, 0)")
    for (let i = 0; i < 200; i++) insert.run({ name: `source ${i}` })
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
})
