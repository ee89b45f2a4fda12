// The crash check's direct reads of svc's database on either engine: the SQLite file of a data directory
// (through ./db, unchanged for soak.ts) or a Postgres database by URL. Every row is read, not the admin
// API's pages; only clicks.click_id, the conversions and the jobs' status are touched.
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { clickIdSet, conversionsByTid, dbPath, scalar, type ConversionRow } from './db'

export type Engine = 'sqlite' | 'postgres'

/** The counts the check needs; constant SQL valid on both engines. */
export const COUNT = {
  clicks: 'SELECT count(*) AS n FROM clicks',
  conversions: 'SELECT count(*) AS n FROM conversions',
  jobsRunning: "SELECT count(*) AS n FROM jobs WHERE status = 'running'",
} as const

export interface EngineDb {
  engine: Engine
  clickIds(): Promise<Set<string>>
  conversionsByTid(): Promise<Map<string, ConversionRow>>
  count(which: keyof typeof COUNT): Promise<number>
  /** `id:attempts` of every job in state running (an attempt is identified by both). */
  runningAttempts(): Promise<Set<string>>
  close(): Promise<void>
}

export function sqliteDb(dataDir: string): EngineDb {
  return {
    engine: 'sqlite',
    clickIds: async () => clickIdSet(dataDir),
    conversionsByTid: async () => conversionsByTid(dataDir),
    count: async (which) => scalar(dataDir, COUNT[which]),
    runningAttempts: async () => runningAttemptsSqlite(dataDir),
    close: async () => {},
  }
}

/** One connection of its own (svc's pool is not involved): it sees what was committed, nothing else. */
export function pgDb(url: string): EngineDb {
  const sql = new SQL(url, { max: 1 })
  return {
    engine: 'postgres',
    async clickIds() {
      const rows = (await sql`SELECT click_id FROM clicks`) as Array<{ click_id: string }>
      return new Set(rows.map((r) => r.click_id))
    },
    async conversionsByTid() {
      const rows = (await sql`SELECT id, click_id, transaction_id, type FROM conversions WHERE transaction_id IS NOT NULL`) as ConversionRow[]
      return new Map(rows.map((r) => [r.transaction_id!, { ...r, id: Number(r.id) }]))
    },
    async count(which) {
      const rows = (await sql.unsafe(COUNT[which])) as Array<{ n: number | bigint | string }> // constant text above
      return Number(rows[0]?.n ?? NaN)
    },
    async runningAttempts() {
      const rows = (await sql`SELECT id, attempts FROM jobs WHERE status = 'running'`) as Array<{ id: unknown; attempts: unknown }>
      return new Set(rows.map((r) => `${Number(r.id)}:${Number(r.attempts)}`))
    },
    close: () => sql.close(),
  }
}

function runningAttemptsSqlite(dataDir: string): Set<string> {
  const db = new Database(dbPath(dataDir), { readonly: true })
  try {
    db.run('PRAGMA busy_timeout = 5000')
    const rows = db.query("SELECT id, attempts FROM jobs WHERE status = 'running'").all() as Array<{ id: number; attempts: number }>
    return new Set(rows.map((r) => `${r.id}:${r.attempts}`))
  } finally {
    db.close()
  }
}
