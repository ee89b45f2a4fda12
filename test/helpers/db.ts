// Direct database access for tests, on either engine: what a test checks behind the API (rows written,
// rows corrupted on purpose). SQL is written once, SQLite-style with `$name` parameters; on Postgres the
// names become `$1, $2…` and int8 values (which Bun returns as strings, or BigInt) come back as numbers,
// so a row reads the same on both engines.
import { SQL } from 'bun'
import type { TestServer } from './server'

type Params = Record<string, unknown>

export interface TestDb {
  all<T = any>(sql: string, params?: Params): Promise<T[]>
  get<T = any>(sql: string, params?: Params): Promise<T | undefined>
  run(sql: string, params?: Params): Promise<void>
}

const pgClients = new Map<string, SQL>()

/** `$name` → `$1…` (each name once, in order of first use) and the values in that order. */
export function positional(sql: string, params: Params): { text: string; values: unknown[] } {
  const order: string[] = []
  const text = sql.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    if (!(name in params)) throw new Error(`test SQL names $${name}, which has no value`)
    let i = order.indexOf(name)
    if (i < 0) i = order.push(name) - 1
    return `$${i + 1}`
  })
  return { text, values: order.map((n) => params[n]) }
}

function numbers<T>(row: Record<string, unknown>): T {
  for (const k in row) if (typeof row[k] === 'bigint') row[k] = Number(row[k])
  return row as T
}

/** The database behind a test server, whichever engine it runs on. */
export function testDb(s: Pick<TestServer, 'ctx'>): TestDb {
  const database = s.ctx.database as unknown as { engine: 'sqlite' | 'postgres'; url?: string; raw?: any }
  if (database.engine !== 'postgres') {
    const raw = database.raw
    return {
      all: async (sql, p = {}) => raw.prepare(sql).all(p),
      get: async (sql, p = {}) => raw.prepare(sql).get(p) ?? undefined,
      run: async (sql, p = {}) => void raw.prepare(sql).run(p),
    }
  }
  const url = database.url!
  let client = pgClients.get(url)
  // A client of the test's own with exact int8s (BigInt), so numbers convert without guessing at strings.
  if (!client) pgClients.set(url, (client = new SQL(url, { max: 2, bigint: true, idleTimeout: 2 })))
  const all = async <T>(sql: string, p: Params = {}) => {
    const { text, values } = positional(sql, p)
    const rows = (await client!.unsafe(text, values)) as Array<Record<string, unknown>>
    return [...rows].map((r) => numbers<T>({ ...r }))
  }
  return {
    all,
    get: async (sql, p) => (await all(sql, p))[0] as never,
    run: async (sql, p) => void (await all(sql, p)),
  }
}
