// Constraint violations, classified once for both engines: the admin stores turn them into 409s.
//   SQLite: both drivers set the extended result code (drizzle may wrap it in `cause`).
//   Postgres: Bun's client reports a server error as code ERR_POSTGRES_SERVER_ERROR with the SQLSTATE in `errno`.

export type Violation = 'unique' | 'foreign_key' | 'check' | 'not_null'

const SQLITE: Record<string, Violation> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign_key',
  SQLITE_CONSTRAINT_CHECK: 'check',
  SQLITE_CONSTRAINT_NOTNULL: 'not_null',
}
const POSTGRES: Record<string, Violation> = { '23505': 'unique', '23503': 'foreign_key', '23514': 'check', '23502': 'not_null' }

/** Which constraint a failed statement broke, on either engine; null for any other error. */
export function violation(err: unknown): Violation | null {
  for (let e = err as { code?: unknown; errno?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as never, depth++) {
    if (typeof e.code === 'string' && Object.hasOwn(SQLITE, e.code)) return SQLITE[e.code]!
    if (e.code === 'ERR_POSTGRES_SERVER_ERROR' && typeof e.errno === 'string' && Object.hasOwn(POSTGRES, e.errno)) return POSTGRES[e.errno]!
  }
  return null
}

/** A UNIQUE (or primary key) violation on either engine. */
export const isUniqueViolation = (err: unknown): boolean => violation(err) === 'unique'
