// Throwaway PostgreSQL for tests (issue 8): one cluster per test process under a temp dir, fsync off,
// trust auth on 127.0.0.1 only, stopped and deleted when the process exits.
import { spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SQL } from 'bun'
import { afterTestProcess, shQuote } from './reaper'

/** True when the tests are asked to run on Postgres (SVC_TEST_ENGINE=postgres). */
export const onPostgres: boolean = process.env.SVC_TEST_ENGINE === 'postgres'

/** initdb/pg_ctl found (PATH, or /usr/lib/postgresql/<ver>/bin)? Message saying how to install if not. */
export function pgAvailable(): { ok: true; bin: string } | { ok: false; why: string } {
  const dirs = (process.env.PATH ?? '').split(':').filter(Boolean)
  const debian = '/usr/lib/postgresql'
  if (existsSync(debian)) {
    // Newest version first when several are installed.
    const versions = readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))
    dirs.push(...versions.map((v) => join(debian, v, 'bin')))
  }
  const bin = dirs.find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl')))
  if (bin) return { ok: true, bin }
  return {
    ok: false,
    why: 'PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or in /usr/lib/postgresql/<ver>/bin; ' +
      'install them (Debian/Ubuntu: apt-get install postgresql; macOS: brew install postgresql) to run the Postgres tests',
  }
}

/** Free TCP port on 127.0.0.1: listen on port 0, read what the kernel chose, close. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port
      srv.close(() => resolve(port))
    })
  })
}

/**
 * initdb refuses to run as root (and this machine and CI run as root), so as root the cluster runs as an
 * unprivileged user: `postgres` (created by the Debian package) or else `nobody`, through runuser. The temp
 * dir is chowned to that user; everything else runs as whoever we are.
 */
function runAs(): string | null {
  if (process.getuid?.() !== 0) return null
  for (const user of ['postgres', 'nobody']) if (spawnSync('id', ['-u', user]).status === 0) return user
  throw new Error('running as root and neither a "postgres" nor a "nobody" user exists to run initdb as')
}

function pgRun(bin: string, tool: string, args: string[], user: string | null) {
  const cmd = join(bin, tool)
  const [file, argv] = user ? ['runuser', ['-u', user, '--', cmd, ...args]] : [cmd, args]
  return spawnSync(file, argv, { encoding: 'utf8' })
}

let cluster: Promise<{ host: string; port: number; adminUrl: string }> | null = null

/** Starts (once per test process) a throwaway PostgreSQL cluster under a temp dir; stops it at exit. */
export function pgCluster(): Promise<{ host: string; port: number; adminUrl: string }> {
  // Module-level promise: bun test runs every file in one process, and they all share this one cluster.
  cluster ??= start()
  return cluster
}

async function start(): Promise<{ host: string; port: number; adminUrl: string }> {
  const avail = pgAvailable()
  if (!avail.ok) throw new Error(avail.why)
  const user = runAs()
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'))
  const data = join(dir, 'data')
  if (user) {
    const uid = Number(spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim())
    const gid = Number(spawnSync('id', ['-g', user], { encoding: 'utf8' }).stdout.trim())
    chownSync(dir, uid, gid)
  }
  const cleanup = () => rmSync(dir, { recursive: true, force: true })
  const init = pgRun(avail.bin, 'initdb', ['-D', data, '-U', 'svc', '--auth=trust', '-E', 'UTF8', '--no-sync'], user)
  if (init.status !== 0) {
    cleanup()
    throw new Error(`initdb failed: ${(init.stderr || init.stdout).trim()}`)
  }
  const host = '127.0.0.1'
  const port = await freePort()
  // fsync and friends off: a test cluster never has to survive a crash, and it makes CREATE DATABASE cheap.
  // max_connections: a whole test:pg run keeps many servers open at once, each with a pool of up to 10 connections plus one LISTEN.
  const opts = `-p ${port} -k ${dir} -c listen_addresses=${host} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=500`
  const started = pgRun(avail.bin, 'pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', 'start'], user)
  if (started.status !== 0) {
    const log = existsSync(join(dir, 'log')) ? await Bun.file(join(dir, 'log')).text() : ''
    cleanup()
    throw new Error(`pg_ctl start failed: ${(started.stderr || started.stdout).trim()}\n${log}`)
  }
  // 'exit' handlers must be synchronous: spawnSync, then delete the data.
  process.on('exit', () => {
    pgRun(avail.bin, 'pg_ctl', ['-D', data, '-m', 'immediate', 'stop'], user)
    cleanup()
  })
  // ...but `bun test` (1.4) never emits 'exit' (nor 'beforeExit'), and a crashed or killed run would not
  // either: a watchdog stops the cluster and deletes the dir once this process has ended.
  const stop = [...(user ? ['runuser', '-u', user, '--'] : []), join(avail.bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop']
  afterTestProcess(`${stop.map(shQuote).join(' ')} >/dev/null 2>&1; rm -rf ${shQuote(dir)}`)
  return { host, port, adminUrl: `postgres://svc@${host}:${port}/postgres` }
}

/** A fresh, empty database on that cluster (CREATE DATABASE svc_<random>); returns its URL. */
export async function freshPgUrl(): Promise<string> {
  const { host, port, adminUrl } = await pgCluster()
  const name = `svc_${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`
  const admin = new SQL(adminUrl, { max: 1 })
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`)
  } finally {
    await admin.close()
  }
  return `postgres://svc@${host}:${port}/${name}`
}
