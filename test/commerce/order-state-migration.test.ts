// The upgrade that renames the order state `payment_failed` to the spec's `failed` (§3; SQLite 0022,
// Postgres 0019): rows stored before it change, every other status stays as it was.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/client'
import { openPg } from '../../src/db/pg/client'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function migrations(folder: 'drizzle' | 'drizzle-pg', tag: string): { before: string[]; target: string[] } {
  const dir = join(import.meta.dir, '../../', folder)
  const files = readdirSync(dir).filter((f) => f.endsWith('.sql')).sort()
  const statements = (f: string) => readFileSync(join(dir, f), 'utf8').split('--> statement-breakpoint').filter((s) => s.trim())
  const at = files.indexOf(`${tag}.sql`)
  expect(at).toBeGreaterThan(0)
  return { before: files.slice(0, at).flatMap(statements), target: statements(files[at]!) }
}

const order = (id: number, source: string, status: string) =>
  `INSERT INTO orders (id, source, external_id, status, currency, total, created_at, updated_at) VALUES (${id}, '${source}', 'o${id}', '${status}', 'EUR', 20, 0, 0)`
const seed = [
  order(1, 'pay-a', 'payment_failed'), order(2, 'pay-a', 'paid'), order(3, 'ecom-b', 'failed'), order(4, 'native', 'payment_failed'),
  order(5, 'ecom-a', 'pending'),
]
const after = [
  { id: 1, status: 'failed' }, { id: 2, status: 'paid' }, { id: 3, status: 'failed' }, { id: 4, status: 'failed' }, { id: 5, status: 'pending' },
]

describe('order state payment_failed → failed', () => {
  test('SQLite 0022 renames the stored payment_failed orders', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-0022-'))
    dirs.push(dir)
    const database = await openDatabase(join(dir, 'svc.db'))
    try {
      const { before, target } = migrations('drizzle', '0022_order_state_failed')
      for (const s of [...before, ...seed, ...target]) database.raw.exec(s)
      expect(database.raw.prepare('SELECT id, status FROM orders ORDER BY id').all()).toEqual(after)
    } finally {
      database.close()
    }
  })

  test.skipIf(!pgAvailable().ok)('Postgres 0019 renames them the same way', async () => {
    const db = await openPg(await freshPgUrl())
    try {
      const { before, target } = migrations('drizzle-pg', '0019_order_state_failed')
      for (const s of [...before, ...seed, ...target]) await db.sql.unsafe(s)
      expect([...await db.sql`SELECT id::int AS id, status FROM orders ORDER BY id`]).toEqual(after)
    } finally {
      await db.close()
    }
  }, 60_000)
})
