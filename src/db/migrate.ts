import { join } from 'node:path'
import { existsSync } from 'node:fs'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import type { Database } from './client'
import { log } from '../lib/log'

/**
 * Inside the compiled binary the migration folders (drizzle/ for SQLite, drizzle-pg/ for Postgres) are
 * embedded with `--asset` and appear at /$bunfs/root/<name>; from source they sit beside src/.
 */
export function migrationsFolder(name: 'drizzle' | 'drizzle-pg' = 'drizzle'): string {
  const isBinary = typeof Bun !== 'undefined' && (Bun as unknown as { isStandaloneExecutable?: boolean }).isStandaloneExecutable
  const candidates = isBinary
    ? [join(import.meta.dir, name), `/$bunfs/root/${name}`]
    : [join(import.meta.dirname ?? __dirname, '..', '..', name)]
  for (const c of candidates) if (existsSync(join(c, 'meta', '_journal.json'))) return c
  throw new Error(`migrations not found (looked in ${candidates.join(', ')})`)
}

/** Applies every pending migration in one transaction (drizzle's migrator). Returns how many ran. */
export function migrate(database: Database): number {
  const folder = migrationsFolder()
  const all = readMigrationFiles({ migrationsFolder: folder })
  const before = countApplied(database)
  const exists = (table: string) =>
    database.raw.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = $table").get({ table }) !== undefined
  // Migration 0007 creates the email lists and clears every landing's email_list_id (none could exist).
  const dangling = exists('landings') && !exists('email_lists')
    ? (database.raw.prepare('SELECT count(*) AS n FROM landings WHERE email_list_id IS NOT NULL').get() as { n: number }).n
    : 0
  const dialect = (database.db as unknown as { dialect: { migrate: Function }; session: unknown })
  dialect.dialect.migrate(all, dialect.session, {})
  reportClearedListRefs(dangling)
  return countApplied(database) - before
}

/** Both engines' upgrade note: landings that pointed at email lists from before lists existed. */
export function reportClearedListRefs(n: number): void {
  if (n > 0) log.warn(`migration: cleared email_list_id of ${n} landing${n === 1 ? '' : 's'}: it named an email list that does not exist (set it again to a list you create)`)
}

function countApplied(database: Database): number {
  try {
    const row = database.raw.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }
    return row.n
  } catch {
    return 0
  }
}
