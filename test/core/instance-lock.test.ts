// One server per data directory: a second `svc serve` (or `svc migrate`) is refused with the running
// server's pid; backup and the user commands work beside it; a crash (SIGKILL) leaves no stale lock.
import { afterAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { emptyDir, modeOf, serveChild, svc, type ServeChild } from '../helpers/cli'
import { lockDataDir, DataDirBusy } from '../../src/db/lock'
import { onPostgres } from '../helpers/pg'

// Each test runs svc as child processes (about 0.5 s each alone, several times that on a loaded machine).
setDefaultTimeout(30_000)

// No SVC_SECRET: the server generates secret.key, whose mode is checked too.
const ENV = { SVC_ADMIN_EMAIL: 'owner@example.com', SVC_ADMIN_PASSWORD: 'owner-password-1' }
const dirs: string[] = []
const children: ServeChild[] = []
afterAll(() => {
  for (const c of children) c.proc.kill('SIGKILL')
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

// The data-directory lock exists on SQLite only: Postgres instances share one database and take no lock
// (cli-pg.test.ts checks that Postgres mode creates no data directory and no lock file).
describe.skipIf(onPostgres)('one svc serve per data directory', () => {
  test('a second serve exits 1 naming the running pid; migrate is refused; backup works; after SIGKILL a new serve starts', async () => {
    const dir = emptyDir()
    dirs.push(dir)
    const env = { ...ENV, SVC_DATA_DIR: dir }
    const first = await serveChild(env)
    children.push(first)
    expect(first.out).toContain(`data directory ${dir}\n`)
    expect((await fetch(`${first.base}/healthz`)).status).toBe(200)

    const busy = `error: data directory ${dir} is in use by another svc process (pid ${first.proc.pid}); stop it first, or use another SVC_DATA_DIR\n`
    const second = svc(['serve'], { ...env, HOST: '127.0.0.1', PORT: '0' })
    expect(second).toMatchObject({ code: 1, err: busy })
    expect(second.out).not.toContain('svc started')
    // --data-dir reaches the same directory another way: still the same lock.
    expect(svc(['serve', '--data-dir', dir, '--port', '0', '--host', '127.0.0.1'], ENV)).toMatchObject({ code: 1, err: busy })
    expect(svc(['migrate'], env)).toMatchObject({ code: 1, err: busy })

    // Read-only backup runs beside the server.
    const target = join(dir, 'while-serving.db')
    const backup = svc(['backup', target], env)
    expect(backup.code).toBe(0)
    const copy = new Database(target, { readonly: true })
    expect((copy.query('SELECT count(*) AS n FROM users').get() as { n: number }).n).toBe(1)
    copy.close()

    // Files of a running server are owner-only.
    for (const f of ['svc.db', 'svc.db-wal', 'svc.db-shm', 'secret.key', 'svc.lock']) expect([f, modeOf(join(dir, f))]).toEqual([f, '600'])

    first.proc.kill('SIGKILL')
    await first.proc.exited
    const again = await serveChild(env)
    children.push(again)
    expect((await fetch(`${again.base}/healthz`)).status).toBe(200)
    expect(await again.stop()).toBe(0)

    // A clean stop releases the lock too: migrate runs now.
    const migrated = svc(['migrate'], env)
    expect(migrated).toMatchObject({ code: 0, out: `database ${join(dir, 'svc.db')} is up to date\n` })
  }, 60_000)

  test('the lock also holds between two openings in one process, and is free again after release', () => {
    const dir = emptyDir()
    dirs.push(dir)
    const lock = lockDataDir(dir)
    let refused: unknown = null
    try {
      lockDataDir(dir)
    } catch (err) {
      refused = err
    }
    expect(refused).toBeInstanceOf(DataDirBusy)
    expect((refused as DataDirBusy).pid).toBe(process.pid)
    lock.release()
    lockDataDir(dir).release()
  })
})
