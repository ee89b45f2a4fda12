// The upgrade that adds orders.counted, counted_currency and reversed (SQLite 0020, Postgres 0017): an order
// that counted before gets what its sale conversion counted (its total when that conversion is gone) and
// what was taken back (all of it once cancelled, else its refunds up to what counted), so the caps hold for
// orders older than the upgrade.
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

const conv = (id: number, revenue: number, currency: string) =>
  `INSERT INTO conversions (id, click_row_id, click_id, campaign_id, type, revenue, currency, date, created_at) VALUES (${id}, 1, 'c', 1, 'sale', ${revenue}, '${currency}', 0, 0)`
const order = (id: number, status: string, currency: string, total: number, refunded: number, conversionId: number | null, reversalId: number | null) =>
  `INSERT INTO orders (id, source, external_id, status, currency, total, refunded, conversion_id, reversal_id, created_at, updated_at) ` +
  `VALUES (${id}, 'ecom-a', 'o${id}', '${status}', '${currency}', ${total}, ${refunded}, ${conversionId ?? 'NULL'}, ${reversalId ?? 'NULL'}, 0, 0)`
const seed = [
  conv(1, 10, 'USD'), conv(2, -10, 'USD'), conv(3, 20, 'EUR'),
  // Counted 10, its total raised to 1000 afterwards, then cancelled.
  order(1, 'cancelled', 'USD', 1000, 0, 1, 2),
  // Counted 20, 5 refunded.
  order(2, 'partially_refunded', 'EUR', 20, 5, 3, null),
  // Never counted.
  order(3, 'pending', 'EUR', 7, 0, null, null),
  // Its sale conversion is gone: its total stands in; refunds past it are capped.
  order(4, 'refunded', 'GBP', 30, 40, 99, null),
]
const after = [
  { id: 1, counted: 10, counted_currency: 'USD', reversed: 10 },
  { id: 2, counted: 20, counted_currency: 'EUR', reversed: 5 },
  { id: 3, counted: null, counted_currency: null, reversed: 0 },
  { id: 4, counted: 30, counted_currency: 'GBP', reversed: 30 },
]

describe('orders.counted / reversed migration', () => {
  test('SQLite 0020 fills counted, counted_currency and reversed of the orders that counted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-0020-'))
    dirs.push(dir)
    const database = await openDatabase(join(dir, 'svc.db'))
    try {
      const { before, target } = migrations('drizzle', '0020_commerce_reversals')
      for (const s of [...before, ...seed, ...target]) database.raw.exec(s)
      expect(database.raw.prepare('SELECT id, counted, counted_currency, reversed FROM orders ORDER BY id').all()).toEqual(after)
    } finally {
      database.close()
    }
  })

  test.skipIf(!pgAvailable().ok)('Postgres 0017 fills them the same way', async () => {
    const db = await openPg(await freshPgUrl())
    try {
      const { before, target } = migrations('drizzle-pg', '0017_commerce_reversals')
      for (const s of [...before, ...seed, ...target]) await db.sql.unsafe(s)
      const rows = [...await db.sql`SELECT id::int AS id, counted, counted_currency, reversed FROM orders ORDER BY id`]
      expect(rows).toEqual(after)
    } finally {
      await db.close()
    }
  }, 60_000)
})
