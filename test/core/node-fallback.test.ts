import { expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onPostgres } from '../helpers/pg'

const ROOT = join(import.meta.dir, '..', '..')

// The better-sqlite3 fallback is SQLite machinery: nothing of it runs on Postgres.
test.skipIf(onPostgres)('the database layer runs under Node on better-sqlite3 (migrations, pragmas, named binds)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-node-'))
  try {
    const p = Bun.spawnSync(['node', join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(import.meta.dir, 'fixtures/node-open.mts'), join(dir, 'n.db')], {
      cwd: ROOT,
    })
    const out = p.stdout.toString().trim().split('\n').pop()!
    expect(p.exitCode).toBe(0)
    expect(JSON.parse(out)).toEqual({ runtime: 'node', applied: expect.any(Number), revenueTypes: 4, journal: 'wal', atomic: '1,3' })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}, 30000)
