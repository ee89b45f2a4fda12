// PostgreSQL connection (issue 8): Bun's built-in SQL client, selected with SVC_DATABASE_URL=postgres://…
import { SQL } from 'bun'

export interface PgDatabase {
  engine: 'postgres'
  sql: SQL
  /** The URL as given (it may hold a password: never log it; use redactUrl). */
  url: string
  close(): Promise<void>
}

/**
 * The database named by SVC_DATABASE_URL cannot be used (bad URL, refused, wrong credentials): an operator's
 * problem, said by the CLI in one line (its message names the host, never the password), not a bug's stack.
 */
export class PgUnavailable extends Error {}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return '(unparsable database URL)'
  }
}

/**
 * Opens a pool of up to `max` connections and checks the server answers, so a wrong URL fails at start-up
 * with one line naming the host (never the password) instead of on the first request.
 *
 * Options, from Bun's SQL docs: `bigint` stays false, so int8 values (bigint ids, epoch-ms times, count(*),
 * sum() of integers) arrive as decimal STRINGS, not numbers (`bigint: true` gives BigInts): Bun has no
 * per-column type transform yet. They are read back as numbers, exactly as on SQLite, by int8ToNumbers() for
 * every query of a StoreDb, and by `num()` / `numCols()` / int8Columns() of the schema on the hot paths. `prepare` stays true (named prepared statements: the hot paths
 * repeat the same few statements). idleTimeout closes pooled connections unused for a minute.
 */
export async function openPg(url: string, opts?: { max?: number }): Promise<PgDatabase> {
  const where = describe(url)
  let sql: SQL
  try {
    sql = new SQL(url, { max: opts?.max ?? 10, idleTimeout: 60, connectionTimeout: 10 })
  } catch (err) {
    throw new PgUnavailable(`PostgreSQL: invalid database URL: ${reason(err, url)}`)
  }
  try {
    await sql`SELECT 1`
  } catch (err) {
    await sql.close({ timeout: 0 }).catch(() => {})
    throw new PgUnavailable(`PostgreSQL at ${where} unreachable: ${reason(err, url)}`)
  }
  return { engine: 'postgres', sql, url, close: () => sql.close({ timeout: 5 }) }
}

/** host:port/database, never the user's password. */
function describe(url: string): string {
  try {
    const u = new URL(url)
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`
  } catch {
    return '(unparsable database URL)'
  }
}

/** The driver's message on one line, with the password cut out in case the driver echoes the URL. */
function reason(err: unknown, url: string): string {
  let msg = (err instanceof Error ? err.message : String(err)).split('\n')[0]!
  // Bun's connection errors say only "Failed to connect"; the code tells refused from auth failure etc.
  const code = (err as { code?: unknown })?.code
  if (typeof code === 'string' && !msg.includes(code)) msg += ` (${code})`
  let password = ''
  try { password = decodeURIComponent(new URL(url).password) } catch {}
  if (password) msg = msg.split(password).join('***')
  return msg
}

/** The type OID Postgres gives int8 columns in a result's description. */
const INT8_OID = 20

/**
 * Every int8 column of a result (and the `also` ones: numeric sums) as numbers, in place. Which columns are int8
 * is what the server says of each result column (Bun: `result.columns`, type = the type's OID), so an alias or a
 * count(*) is found as well as a schema column, and a text column is never touched whatever its name.
 * Per result: one pass over its columns; per row: the int8 columns only, as numCols.
 */
export function int8ToNumbers<R extends Record<string, unknown>>(result: R[], also?: readonly string[]): R[] {
  if (result.length === 0) return result
  const columns = (result as R[] & { columns?: { name: string; type: number }[] }).columns
  if (!columns) throw new Error('Bun SQL gave a result without its columns: int8 values cannot be told apart')
  const names = columns.filter((c) => c.type === INT8_OID).map((c) => c.name)
  if (also) names.push(...also)
  if (names.length === 0) return result
  for (const row of result) {
    for (const n of names) {
      const v = row[n]
      if (typeof v === 'string' || typeof v === 'bigint') (row as Record<string, unknown>)[n] = Number(v)
    }
  }
  return result
}

/** An int8/numeric value as Bun SQL returns it (string, or BigInt with `bigint: true`) → number; null stays null. */
export function num(v: unknown): number {
  return v === null || v === undefined ? (v as never) : typeof v === 'number' ? v : Number(v)
}

/** Converts the named int8 columns of each row to numbers in place (ids, epoch-ms times, sums); returns the rows. */
export function numCols<T extends Record<string, unknown>>(rows: T[], ...cols: (keyof T)[]): T[] {
  for (const row of rows) for (const c of cols) if (row[c] != null) (row as Record<keyof T, unknown>)[c] = Number(row[c])
  return rows
}
