// Direct reads of svc's SQLite file, for checks that must see every row (the admin API pages by 500).
// Only the `clicks.click_id`, `conversions` and `jobs` columns the checks need are read.
import { Database } from 'bun:sqlite'
import { join } from 'node:path'

export function dbPath(dataDir: string): string {
  return join(dataDir, 'svc.db')
}

function withDb<T>(dataDir: string, fn: (db: Database) => T): T {
  const db = new Database(dbPath(dataDir), { readonly: true })
  try {
    db.run('PRAGMA busy_timeout = 5000')
    return fn(db)
  } finally {
    db.close()
  }
}

/** Every click_id in the clicks table (one scan; independent of any index or lookup table). */
export function clickIdSet(dataDir: string): Set<string> {
  return withDb(dataDir, (db) => {
    const set = new Set<string>()
    for (const r of db.query('SELECT click_id FROM clicks').iterate() as Iterable<{ click_id: string }>) set.add(r.click_id)
    return set
  })
}

export interface ConversionRow { id: number; click_id: string; transaction_id: string | null; type: string }

/** Conversions by transaction id. */
export function conversionsByTid(dataDir: string): Map<string, ConversionRow> {
  return withDb(dataDir, (db) => {
    const rows = db.query('SELECT id, click_id, transaction_id, type FROM conversions').all() as ConversionRow[]
    return new Map(rows.filter((r) => r.transaction_id !== null).map((r) => [r.transaction_id!, r]))
  })
}

export function scalar(dataDir: string, sql: string): number {
  return withDb(dataDir, (db) => Number((db.query(sql).get() as { n: number } | null)?.n ?? NaN))
}
