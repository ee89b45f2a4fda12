// The WAL checkpointer: a Worker thread with its own connection copies the WAL back into the database
// file, so the redirect's thread never pays for a checkpoint, and the WAL stays small without the
// writers' autocheckpoint.
import { afterAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startCheckpointer } from '../../src/tracking/store/checkpointer'
import { onPostgres } from '../helpers/pg'

const dirs: string[] = []
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }) })

const MB = 1024 * 1024

/** Writes ~20 MB in 100 small transactions, as the click writer does, with no autocheckpoint; returns the WAL's largest size. */
async function writeWithoutAutocheckpoint(withCheckpointer: boolean): Promise<{ maxWal: number; rows: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ckpt-'))
  dirs.push(dir)
  const path = join(dir, 'svc.db')
  const db = new Database(path, { create: true })
  db.run('PRAGMA journal_mode = WAL')
  db.run('PRAGMA synchronous = NORMAL')
  db.run('PRAGMA wal_autocheckpoint = 0')
  db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)')
  const cp = withCheckpointer ? startCheckpointer(path) : null
  const insert = db.prepare('INSERT INTO t (b) VALUES (?)')
  const batch = db.transaction(() => { for (let i = 0; i < 50; i++) insert.run(new Uint8Array(4000)) })
  let maxWal = 0
  try {
    for (let i = 0; i < 100; i++) {
      batch()
      maxWal = Math.max(maxWal, statSync(`${path}-wal`).size)
      await Bun.sleep(10)
    }
  } finally {
    await cp?.stop()
  }
  const rows = (db.query('SELECT count(*) AS n FROM t').get() as { n: number }).n
  db.close()
  return { maxWal, rows }
}

// SQLite-only: WAL checkpoints are SQLite machinery; a Postgres server runs no checkpointer (the
// Postgres run would only repeat the SQLite one).
describe.skipIf(onPostgres)('WAL checkpointer', () => {
  test('without autocheckpoint the WAL holds everything written (the control)', async () => {
    const { maxWal, rows } = await writeWithoutAutocheckpoint(false)
    expect(rows).toBe(5000)
    expect(maxWal).toBeGreaterThan(18 * MB)
  })

  test('the checkpointer keeps the WAL small while the writer keeps committing, and loses no row', async () => {
    const { maxWal, rows } = await writeWithoutAutocheckpoint(true)
    expect(rows).toBe(5000)
    // About 2 MB are committed between two checkpoints (every 100 ms); the WAL starts over once all is copied.
    expect(maxWal).toBeLessThan(8 * MB)
  })
})
