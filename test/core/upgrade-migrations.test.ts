// Upgrades of databases made by earlier versions, on both engines:
// - campaign_offers.position and campaign_landings.position (SQLite 0005, Postgres 0002) number the links
//   in the order they were read until then (rowid on SQLite, physical order on Postgres), so no existing
//   rotation changes order;
// - the email lists (SQLite 0007, Postgres 0004) clear every landing's email_list_id (no list existed
//   before) and svc says how many it cleared.
import { afterAll, describe, expect, spyOn, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { openPg } from '../../src/db/pg/client'
import { migratePg } from '../../src/db/pg/migrate'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

const PG_SETUP_MS = 60_000
const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** The statements of every migration file of a folder, split into the ones before `tag` and `tag`'s own. */
function migrations(folder: 'drizzle' | 'drizzle-pg', tag: string): { before: string[]; target: string[] } {
  const dir = join(import.meta.dir, '../../', folder)
  const files = readdirSync(dir).filter((f) => f.endsWith('.sql')).sort()
  const statements = (f: string) => readFileSync(join(dir, f), 'utf8').split('--> statement-breakpoint').filter((s) => s.trim())
  const at = files.indexOf(`${tag}.sql`)
  expect(at).toBeGreaterThan(0)
  return { before: files.slice(0, at).flatMap(statements), target: statements(files[at]!) }
}

// Offers 3, 1, 2 and landings 2, 1 of campaign 1 are inserted in that order; campaign 2's offer in between.
const seed = [
  "INSERT INTO offers (id, name, slug, url, payout, currency, created_at, updated_at) VALUES (1, 'o1', 'o1', 'https://o.example/1', 0, 'USD', 0, 0), (2, 'o2', 'o2', 'https://o.example/2', 0, 'USD', 0, 0), (3, 'o3', 'o3', 'https://o.example/3', 0, 'USD', 0, 0)",
  "INSERT INTO landings (id, name, slug, html, created_at, updated_at) VALUES (1, 'l1', 'l1', 'x', 0, 0), (2, 'l2', 'l2', 'x', 0, 0)",
  "INSERT INTO campaigns (id, name, slug, active, created_at, updated_at) VALUES (1, 'c1', 'c1', 1, 0, 0), (2, 'c2', 'c2', 1, 0, 0)",
  'INSERT INTO campaign_offers (campaign_id, offer_id, weight) VALUES (1, 3, 10)',
  'INSERT INTO campaign_offers (campaign_id, offer_id, weight) VALUES (2, 2, 10)',
  'INSERT INTO campaign_offers (campaign_id, offer_id, weight) VALUES (1, 1, 20)',
  'INSERT INTO campaign_offers (campaign_id, offer_id, weight) VALUES (1, 2, 30)',
  'INSERT INTO campaign_landings (campaign_id, landing_id, weight) VALUES (1, 2, 10)',
  'INSERT INTO campaign_landings (campaign_id, landing_id, weight) VALUES (1, 1, 20)',
]
const offersAfter = [
  { campaign_id: 1, offer_id: 3, position: 0 },
  { campaign_id: 1, offer_id: 1, position: 1 },
  { campaign_id: 1, offer_id: 2, position: 2 },
  { campaign_id: 2, offer_id: 2, position: 0 },
]
const landingsAfter = [
  { campaign_id: 1, landing_id: 2, position: 0 },
  { campaign_id: 1, landing_id: 1, position: 1 },
]

describe('link position migration', () => {
  test('SQLite 0005 numbers existing links in rowid order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-0005-'))
    dirs.push(dir)
    const database = await openDatabase(join(dir, 'svc.db'))
    try {
      const { before, target } = migrations('drizzle', '0005_campaign_link_position')
      for (const s of [...before, ...seed, ...target]) database.raw.exec(s)
      expect(database.raw.prepare('SELECT campaign_id, offer_id, position FROM campaign_offers ORDER BY campaign_id, position').all()).toEqual(offersAfter)
      expect(database.raw.prepare('SELECT campaign_id, landing_id, position FROM campaign_landings ORDER BY campaign_id, position').all()).toEqual(landingsAfter)
    } finally {
      database.close()
    }
  })

  test.skipIf(!pgAvailable().ok)('Postgres 0002 numbers existing links in physical order', async () => {
    const db = await openPg(await freshPgUrl())
    try {
      const { before, target } = migrations('drizzle-pg', '0002_campaign_link_position')
      for (const s of [...before, ...seed, ...target]) await db.sql.unsafe(s)
      expect([...await db.sql`SELECT campaign_id, offer_id, position FROM campaign_offers ORDER BY campaign_id, position`]).toEqual(offersAfter)
      expect([...await db.sql`SELECT campaign_id, landing_id, position FROM campaign_landings ORDER BY campaign_id, position`]).toEqual(landingsAfter)
    } finally {
      await db.close()
    }
  }, PG_SETUP_MS)
})

const landingsBefore = [
  "INSERT INTO landings (id, name, slug, html, email_list_id, created_at, updated_at) VALUES (1, 'a', 'a', 'x', 4, 0, 0), (2, 'b', 'b', 'x', NULL, 0, 0), (3, 'c', 'c', 'x', 9, 0, 0)",
]

describe('email lists migration', () => {
  const warned = () => {
    const spy = spyOn(console, 'error').mockImplementation(() => {})
    return { lines: () => spy.mock.calls.map((c) => String(c[0])), restore: () => spy.mockRestore() }
  }

  test('SQLite 0007 clears the dangling email_list_id of every landing and says how many', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-0007-'))
    dirs.push(dir)
    const database = await openDatabase(join(dir, 'svc.db'))
    const w = warned()
    try {
      // A database as the version before left it: every migration up to 0006, then the real migrator.
      const { before } = migrations('drizzle', '0007_email_lists')
      for (const s of [...before, ...landingsBefore]) database.raw.exec(s)
      const journal = JSON.parse(readFileSync(join(import.meta.dir, '../../drizzle/meta/_journal.json'), 'utf8')) as { entries: Array<{ when: number; tag: string }> }
      const applied = journal.entries.filter((e) => e.tag < '0007')
      database.raw.exec('CREATE TABLE IF NOT EXISTS __drizzle_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)')
      for (const e of applied) database.raw.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES ($h, $w)').run({ h: e.tag, w: e.when })
      expect(migrate(database)).toBe(journal.entries.length - applied.length)
      expect(database.raw.prepare('SELECT id, email_list_id FROM landings ORDER BY id').all()).toEqual([
        { id: 1, email_list_id: null }, { id: 2, email_list_id: null }, { id: 3, email_list_id: null },
      ])
      expect(w.lines().filter((l) => l.includes('migration: cleared email_list_id of 2 landings'))).toHaveLength(1)
      // Nothing to say on the next start.
      expect(migrate(database)).toBe(0)
      expect(w.lines().filter((l) => l.includes('cleared email_list_id'))).toHaveLength(1)
    } finally {
      w.restore()
      database.close()
    }
  })

  test.skipIf(!pgAvailable().ok)('Postgres 0004 clears the dangling email_list_id of every landing and says how many', async () => {
    const db = await openPg(await freshPgUrl())
    const w = warned()
    try {
      const journal = JSON.parse(readFileSync(join(import.meta.dir, '../../drizzle-pg/meta/_journal.json'), 'utf8')) as { entries: Array<{ when: number; tag: string }> }
      const { before } = migrations('drizzle-pg', '0004_email_lists')
      for (const s of [...before, ...landingsBefore]) await db.sql.unsafe(s)
      await db.sql.unsafe('CREATE SCHEMA IF NOT EXISTS "drizzle"')
      await db.sql.unsafe('CREATE TABLE IF NOT EXISTS "drizzle"."__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)')
      const applied = journal.entries.filter((e) => e.tag < '0004')
      for (const e of applied) await db.sql`INSERT INTO "drizzle"."__drizzle_migrations" (hash, created_at) VALUES (${e.tag}, ${e.when})`
      expect(await migratePg(db)).toBe(journal.entries.length - applied.length)
      expect([...await db.sql`SELECT id, email_list_id FROM landings ORDER BY id`]).toEqual([
        { id: 1, email_list_id: null }, { id: 2, email_list_id: null }, { id: 3, email_list_id: null },
      ])
      expect(w.lines().filter((l) => l.includes('migration: cleared email_list_id of 2 landings'))).toHaveLength(1)
      expect(await migratePg(db)).toBe(0)
      expect(w.lines().filter((l) => l.includes('cleared email_list_id'))).toHaveLength(1)
    } finally {
      w.restore()
      await db.close()
    }
  }, PG_SETUP_MS)
})
