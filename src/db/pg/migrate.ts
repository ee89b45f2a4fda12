import { readMigrationFiles } from 'drizzle-orm/migrator'
import { migrationsFolder, reportClearedListRefs } from '../migrate'
import type { PgDatabase } from './client'

/**
 * Key of the transaction-scoped advisory lock held while migrating: two svc instances starting at once on
 * one database queue behind each other, and the second then finds nothing pending. Any constant works as
 * long as nothing else in the database uses it; this one spells "svcmig" in ASCII (6 bytes: exact as a JS number).
 */
const MIGRATION_LOCK = 0x7376636d6967

/**
 * Applies every pending migration of drizzle-pg/ in one transaction and returns how many ran.
 * Bookkeeping matches drizzle's own pg migrator (drizzle.__drizzle_migrations: id serial, hash text,
 * created_at bigint = the migration's folderMillis; pending = newer than the last applied), so drizzle-kit
 * sees the same state. Not drizzle's migrator itself because it takes no lock: two instances would both
 * run 0000 and the loser would fail on "relation already exists".
 */
export async function migratePg(db: PgDatabase): Promise<number> {
  // readMigrationFiles already splits each file on `--> statement-breakpoint`.
  const all = readMigrationFiles({ migrationsFolder: migrationsFolder('drizzle-pg') })
  return db.sql.begin(async (tx) => {
    // Lock first: the CREATE ... IF NOT EXISTS below are not safe against a concurrent twin either.
    await tx.unsafe(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`)
    await tx.unsafe('CREATE SCHEMA IF NOT EXISTS "drizzle"')
    await tx.unsafe(
      'CREATE TABLE IF NOT EXISTS "drizzle"."__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)',
    )
    const [last] = await tx.unsafe('SELECT created_at FROM "drizzle"."__drizzle_migrations" ORDER BY created_at DESC LIMIT 1')
    // created_at is int8: Bun returns it as a string (see client.ts).
    const lastMillis = last ? Number(last.created_at) : -1
    // Migration 0004 creates the email lists and clears every landing's email_list_id (none could exist).
    const [tables] = await tx`SELECT to_regclass('public.landings') IS NOT NULL AS landings, to_regclass('public.email_lists') IS NOT NULL AS lists`
    const dangling = tables.landings && !tables.lists
      ? Number((await tx`SELECT count(*)::int AS n FROM landings WHERE email_list_id IS NOT NULL`)[0].n)
      : 0
    let ran = 0
    for (const m of all) {
      if (m.folderMillis <= lastMillis) continue
      for (const stmt of m.sql) if (stmt.trim()) await tx.unsafe(stmt)
      await tx`INSERT INTO "drizzle"."__drizzle_migrations" (hash, created_at) VALUES (${m.hash}, ${m.folderMillis})`
      ran++
    }
    return { ran, dangling }
  }).then(({ ran, dangling }) => {
    reportClearedListRefs(dangling)
    return ran
  })
}
