// A throwaway PostgreSQL cluster for `npm run bench:pg`, started like test/helpers/pg.ts does (initdb and
// pg_ctl on a temp dir, trust auth on 127.0.0.1 only, an unprivileged user when we are root) but with the
// DURABLE settings a product runs with: fsync, synchronous_commit and full_page_writes on (Postgres'
// defaults, set explicitly so nothing inherited can turn them off). The figures are product figures.
import { spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SQL } from 'bun'
import { pgAvailable } from '../../test/helpers/pg'
import { freePort } from './lib'

export { pgAvailable }

/** BENCH_PG_STATEMENTS=1: pg_stat_statements loaded, for benches that print where Postgres spent its time. */
const STATEMENTS = process.env.BENCH_PG_STATEMENTS === '1' ? ' -c shared_preload_libraries=pg_stat_statements' : ''
/** BENCH_PG_OPTS: more server options (`-c name=value …`) for an experiment; durability is checked after start all the same. */
export const EXTRA_OPTIONS = process.env.BENCH_PG_OPTS ?? ''

export interface BenchCluster {
  host: string
  port: number
  /** Data directory (on the same file system as the SQLite case's data: tmpdir()). */
  data: string
  /** What the server reports for the settings that decide durability and commit cost. */
  settings: Record<string, string>
  /** Postgres' major version as the server reports it. */
  version: string
  /** CREATE DATABASE <name>; its URL. */
  createDatabase(name: string): Promise<string>
  /** The postmaster and every backend it forked (for CPU accounting). */
  pids(): number[]
  /** Stops the server (fast shutdown) and deletes the directory. Safe to call more than once. */
  stop(): void
}

/** initdb refuses to run as root: as root the cluster runs as `postgres` (Debian's package user) or `nobody`. */
function runAs(): string | null {
  if (process.getuid?.() !== 0) return null
  for (const user of ['postgres', 'nobody']) if (spawnSync('id', ['-u', user]).status === 0) return user
  throw new Error('running as root and neither a "postgres" nor a "nobody" user exists to run initdb as')
}

/** This machine's huge pages (Linux /proc/meminfo; all 0 where it does not say). */
export function hugePages(): { total: number; free: number; reserved: number } {
  let m = ''
  try {
    m = readFileSync('/proc/meminfo', 'utf8')
  } catch {}
  const n = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(m)?.[1] ?? 0)
  return { total: n('HugePages_Total'), free: n('HugePages_Free'), reserved: n('HugePages_Rsvd') }
}

/** Huge pages in use or reserved by some process. */
function hugePagesTaken(): number {
  const h = hugePages()
  return h.total - h.free + h.reserved
}

/**
 * `pin`: a taskset prefix (['taskset', '-c', '1'] or []). pg_ctl forks the postmaster, which forks one
 * backend per connection: they all inherit the CPU affinity. `extraOptions`: more server options (`-c name=value …`),
 * BENCH_PG_OPTS unless given.
 */
export async function startBenchCluster(pin: string[], extraOptions = EXTRA_OPTIONS): Promise<BenchCluster> {
  const avail = pgAvailable()
  if (!avail.ok) throw new Error(avail.why)
  const bin = avail.bin
  const user = runAs()
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-pg-'))
  const data = join(dir, 'data')
  if (user) {
    const id = (flag: string) => Number(spawnSync('id', [flag, user], { encoding: 'utf8' }).stdout.trim())
    chownSync(dir, id('-u'), id('-g'))
  }
  const run = (cmd: string[]) => {
    const argv = [...pin, ...(user ? ['runuser', '-u', user, '--'] : []), ...cmd]
    return spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8' })
  }
  let stopped = false
  const stop = () => {
    if (stopped) return
    stopped = true
    if (existsSync(join(data, 'postmaster.pid'))) run([join(bin, 'pg_ctl'), '-D', data, '-m', 'fast', '-w', 'stop'])
    rmSync(dir, { recursive: true, force: true })
  }
  // A bench stopped by an exception or Ctrl-C still leaves no server behind ('exit' handlers are synchronous).
  process.on('exit', stop)
  try {
    // --no-sync only skips initdb's final flush of the files it wrote; the running server is durable.
    const init = run([join(bin, 'initdb'), '-D', data, '-U', 'svc', '--auth=trust', '-E', 'UTF8', '--no-sync'])
    if (init.status !== 0) throw new Error(`initdb failed: ${(init.stderr || init.stdout).trim()}`)
    const host = '127.0.0.1'
    const port = await freePort()
    const takenBefore = hugePagesTaken()
    const opts = `-p ${port} -k ${dir} -c listen_addresses=${host} -c fsync=on -c synchronous_commit=on -c full_page_writes=on${STATEMENTS}${extraOptions ? ` ${extraOptions}` : ''}`
    const started = run([join(bin, 'pg_ctl'), '-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', 'start'])
    if (started.status !== 0) {
      const log = existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8') : ''
      throw new Error(`pg_ctl start failed: ${(started.stderr || started.stdout).trim()}\n${log}`)
    }
    const adminUrl = `postgres://svc@${host}:${port}/postgres`
    const admin = new SQL(adminUrl, { max: 1 })
    const settings: Record<string, string> = {}
    let version = ''
    try {
      const names = ['fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method', 'shared_buffers', 'max_connections']
      const rows = await admin`SELECT name, setting, unit FROM pg_settings WHERE name IN ${admin(names)}`
      for (const r of rows as Array<{ name: string; setting: string; unit: string | null }>) {
        settings[r.name] = r.unit === '8kB' ? `${(Number(r.setting) * 8) / 1024} MB` : r.setting
      }
      version = String((await admin`SHOW server_version`)[0].server_version)
    } finally {
      await admin.close()
    }
    // Whether the server's shared memory took huge pages (Postgres' default `try` uses them when the kernel has
    // some reserved, vm.nr_hugepages): they change its CPU per statement on a VM (docs/postgres-tuning.md).
    settings.huge_pages_in_use = hugePagesTaken() > takenBefore ? 'yes' : 'no'
    if (settings.fsync !== 'on' || settings.synchronous_commit !== 'on') {
      throw new Error(`the bench cluster is not durable: fsync=${settings.fsync} synchronous_commit=${settings.synchronous_commit}`)
    }
    const postmaster = () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
    return {
      host, port, data, settings, version, stop,
      async createDatabase(name) {
        if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`)
        const sql = new SQL(adminUrl, { max: 1 })
        try {
          await sql.unsafe(`CREATE DATABASE ${name}`) // checked identifier above: constant-shaped text
        } finally {
          await sql.close()
        }
        return `postgres://svc@${host}:${port}/${name}`
      },
      pids() {
        const root = postmaster()
        const out = [root]
        for (const e of readdirSync('/proc')) {
          if (!/^\d+$/.test(e)) continue
          try {
            // Field 4 of /proc/<pid>/stat is the parent pid; the command (field 2) may hold spaces, so split after ')'.
            const stat = readFileSync(`/proc/${e}/stat`, 'utf8')
            if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === root) out.push(Number(e))
          } catch {}
        }
        return out
      },
    }
  } catch (err) {
    stop()
    throw err
  }
}
