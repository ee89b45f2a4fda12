// One svc server as a child process for the proof scripts: start, log in, call the admin API, read its
// memory from /proc, kill it with a chosen signal. Temp dirs and children are cleaned up on any exit.
import type { Subprocess } from 'bun'
import { cpus } from 'node:os'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort, killAll, killAllSync, spawnLogged, svcCommand } from '../bench/lib'

export const ROOT = resolve(import.meta.dir, '..', '..')
export const OWNER = { email: 'proof@example.com', password: 'proof-password-1' }

/** Server on core 0, load client on core 1, when taskset and two cores exist. */
export const CAN_PIN = !!Bun.which('taskset') && cpus().length >= 2
export const PIN_SERVER = CAN_PIN ? ['taskset', '-c', '0'] : []

/** Pins this process (every thread) to `core`; returns false when pinning is unavailable. */
export function pinSelf(core: number): boolean {
  if (!CAN_PIN) return false
  return Bun.spawnSync(['taskset', '-a', '-cp', String(core), String(process.pid)], { stdout: 'ignore', stderr: 'ignore' }).exitCode === 0
}

const tempDirs = new Set<string>()
let cleanupInstalled = false

/** Kills children and removes temp dirs on exit, Ctrl-C and SIGTERM, even when a check throws. */
export function installCleanup(): void {
  if (cleanupInstalled) return
  cleanupInstalled = true
  process.on('exit', () => {
    killAllSync()
    for (const d of tempDirs) rmSync(d, { recursive: true, force: true })
  })
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      void killAll().then(() => process.exit(130))
    })
  }
}

export function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix))
  tempDirs.add(d)
  return d
}

export function removeTempDir(d: string): void {
  rmSync(d, { recursive: true, force: true })
  tempDirs.delete(d)
}

/** The environment of every proof run; `extra` overrides. */
export function proofEnv(dataDir: string, port: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    SVC_DATA_DIR: dataDir,
    SVC_SECRET: 'proof-master-secret-0123456789abcdef',
    SVC_ADMIN_EMAIL: OWNER.email,
    SVC_ADMIN_PASSWORD: OWNER.password,
    SVC_OUTBOUND_ALLOW_PRIVATE: '1',
    // Postbacks come from many X-Forwarded-For addresses, so the 600/min/IP limit is not what is tested.
    SVC_TRUST_PROXY: '1',
    SVC_JOBS_BACKOFF_MS: '200',
    SVC_JOBS_BACKOFF_MAX_MS: '1000',
    SVC_JOBS_MAX_ATTEMPTS: '50',
    SVC_JOBS_POLL_MS: '200',
    SVC_JOBS_TIMEOUT_MS: '3000',
    ...extra,
  }
}

export interface ApiResult {
  status: number
  body: any
}

export interface ProcStatus {
  rssKb: number
  hwmKb: number
  anonKb: number
  fileKb: number
}

/** VmRSS, VmHWM, RssAnon, RssFile of a live process (kB), or null when it is gone or /proc is missing. */
export function procStatus(pid: number): ProcStatus | null {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8')
  } catch {
    return null
  }
  const kb = (name: string) => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)
    return m ? Number(m[1]) : NaN
  }
  return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM'), anonKb: kb('RssAnon'), fileKb: kb('RssFile') }
}

export class Svc {
  readonly base: string
  private cookie: Promise<string> | null = null

  private constructor(
    readonly proc: Subprocess,
    readonly port: number,
    readonly dataDir: string,
    readonly logPath: string,
    readonly label: string,
  ) {
    this.base = `http://127.0.0.1:${port}`
  }

  /** Starts `svc serve` on a free port over `dataDir` (pinned to core 0 when possible) and waits for /healthz. */
  static async start(dataDir: string, extraEnv: Record<string, string> = {}): Promise<Svc> {
    const { cmd, label } = svcCommand(ROOT)
    const port = await freePort()
    const logPath = join(dataDir, 'svc.log')
    const proc = spawnLogged([...PIN_SERVER, ...cmd, 'serve'], proofEnv(dataDir, port, extraEnv), logPath)
    const svc = new Svc(proc, port, dataDir, logPath, label)
    const until = Date.now() + 30_000
    while (Date.now() < until) {
      if (proc.exitCode !== null || proc.signalCode !== null) {
        throw new Error(`svc exited during start (code ${proc.exitCode}, signal ${proc.signalCode}):\n${svc.log().slice(-2000)}`)
      }
      try {
        const r = await fetch(`${svc.base}/healthz`)
        await r.arrayBuffer()
        if (r.status === 200) return svc
      } catch {}
      await Bun.sleep(50)
    }
    await svc.kill('SIGKILL')
    throw new Error(`svc did not answer /healthz within 30 s:\n${svc.log().slice(-2000)}`)
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null
  }

  get pid(): number {
    return this.proc.pid
  }

  log(): string {
    try {
      return readFileSync(this.logPath, 'utf8')
    } catch {
      return ''
    }
  }

  status(): ProcStatus | null {
    return procStatus(this.proc.pid)
  }

  /** Logs in once; concurrent callers share the same attempt (login is rate limited). */
  login(): Promise<string> {
    this.cookie ??= this.doLogin()
    this.cookie.catch(() => (this.cookie = null))
    return this.cookie
  }

  private async doLogin(): Promise<string> {
    const r = await retrying(() =>
      fetch(`${this.base}/admin/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(OWNER),
      }),
    )
    if (r.status !== 200) throw new Error(`login failed: ${r.status} ${await r.text()}`)
    const set = r.headers.getSetCookie().find((c) => c.startsWith('svc_admin_session='))
    await r.arrayBuffer()
    if (!set) throw new Error('login set no svc_admin_session cookie')
    return set.split(';')[0]!
  }

  /** JSON request to the admin API as the owner; retried on connection errors (not on HTTP errors). */
  async api(method: string, path: string, body?: unknown): Promise<ApiResult> {
    const cookie = await this.login()
    const r = await retrying(() =>
      fetch(`${this.base}${path}`, {
        method,
        headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    )
    const text = await r.text()
    let parsed: unknown = text
    try {
      parsed = JSON.parse(text)
    } catch {}
    return { status: r.status, body: parsed }
  }

  /** Every row of an admin collection (cursor paging, 500 per page). */
  async listAll(path: string): Promise<any[]> {
    const items: any[] = []
    let cursor: string | null = null
    const sep = path.includes('?') ? '&' : '?'
    do {
      const r = await this.api('GET', `${path}${sep}limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`)
      items.push(...r.body.items)
      cursor = r.body.next_cursor
    } while (cursor)
    return items
  }

  /** Sends `signal` and waits for the exit; SIGKILL after `timeoutMs`. Returns exit code and time taken. */
  async kill(signal: 'SIGKILL' | 'SIGTERM', timeoutMs = 20_000): Promise<{ code: number | null; signal: string | null; ms: number }> {
    const t0 = performance.now()
    this.proc.kill(signal)
    const guard = setTimeout(() => this.proc.kill('SIGKILL'), timeoutMs)
    await this.proc.exited
    clearTimeout(guard)
    const sig = this.proc.signalCode
    return { code: this.proc.exitCode, signal: sig === null ? null : String(sig), ms: Math.round(performance.now() - t0) }
  }
}

/** Retries a request a few times on connection errors (a pooled keep-alive socket of a killed server). */
async function retrying(fn: () => Promise<Response>): Promise<Response> {
  let last: unknown
  for (let i = 0; i < 5; i++) {
    try {
      return await fn()
    } catch (err) {
      last = err
      await Bun.sleep(100)
    }
  }
  throw last
}
