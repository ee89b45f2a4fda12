// Helpers of scripts/bench.ts: child processes that are always reaped, wrk runs and their parsed output.
import type { Subprocess } from 'bun'
import { closeSync, existsSync, openSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

export interface WrkResult {
  requests: number
  seconds: number
  rps: number
  p50ms: number
  p99ms: number
  /** From the Lua response hook (exact counts per status class). */
  n302: number
  n2xx: number
  other: number
  socketErrors: string | null
  raw: string
  /** CPU seconds wrk itself used (user + system, from its rusage); set by runWrk. */
  cpuSeconds?: number
}

const children = new Set<Subprocess>()

/** Kills every child still running (SIGKILL after a grace period). Safe to call more than once. */
export async function killAll(): Promise<void> {
  for (const p of children) {
    if (p.exitCode === null && p.signalCode === null) p.kill('SIGTERM')
  }
  await Promise.all(
    [...children].map(async (p) => {
      const t = setTimeout(() => p.kill('SIGKILL'), 5000)
      await p.exited.catch(() => {})
      clearTimeout(t)
    }),
  )
  children.clear()
}

export function spawn(cmd: string[], env: Record<string, string | undefined> = {}, quiet = true): Subprocess {
  const p = Bun.spawn(cmd, {
    env: { ...process.env, ...env },
    stdout: quiet ? 'ignore' : 'inherit',
    stderr: 'inherit',
  })
  children.add(p)
  p.exited.then(() => children.delete(p))
  return p
}

/** SIGTERM and wait: svc flushes pending clicks on SIGTERM and exits 0. */
export async function stopGracefully(p: Subprocess, timeoutMs = 15000): Promise<number | null> {
  p.kill('SIGTERM')
  const t = setTimeout(() => p.kill('SIGKILL'), timeoutMs)
  const code = await p.exited
  clearTimeout(t)
  return code
}

export async function waitHttp(url: string, timeoutMs = 15000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    try {
      const r = await fetch(url, { redirect: 'manual' })
      await r.arrayBuffer()
      return
    } catch {
      await Bun.sleep(50)
    }
  }
  throw new Error(`nothing answered at ${url} within ${timeoutMs} ms`)
}

export async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = s.port!
  s.stop(true)
  return port
}

function toMs(v: string, unit: string): number {
  const n = Number(v)
  return unit === 'us' ? n / 1000 : unit === 'ms' ? n : unit === 's' ? n * 1000 : unit === 'm' ? n * 60000 : NaN
}

export function parseWrk(out: string): WrkResult {
  const num = (re: RegExp) => {
    const m = re.exec(out)
    return m ? Number(m[1]) : NaN
  }
  const lat = (pct: string) => {
    const m = new RegExp(`^\\s*${pct}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(out)
    return m ? toMs(m[1]!, m[2]!) : NaN
  }
  const reqs = /(\d+) requests in ([\d.]+)(ms|s|m)/.exec(out)
  const status = /STATUS n302=(\d+) n2xx=(\d+) other=(\d+)/.exec(out)
  const sock = /Socket errors: (.*)/.exec(out)
  return {
    requests: reqs ? Number(reqs[1]) : NaN,
    seconds: reqs ? toMs(reqs[2]!, reqs[3]!) / 1000 : NaN,
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    p50ms: lat('50'),
    p99ms: lat('99'),
    n302: status ? Number(status[1]) : NaN,
    n2xx: status ? Number(status[2]) : NaN,
    other: status ? Number(status[3]) : NaN,
    socketErrors: sock ? sock[1]!.trim() : null,
    raw: out,
  }
}

export interface WrkOptions {
  url: string
  seconds: number
  connections: number
  script: string
  headers?: Record<string, string>
  env?: Record<string, string>
  /** taskset prefix (e.g. ['taskset', '-c', '1']) or [] when pinning is unavailable. */
  pin: string[]
}

export async function runWrk(o: WrkOptions): Promise<WrkResult> {
  const cmd = [...o.pin, 'wrk', '-t1', `-c${o.connections}`, `-d${o.seconds}s`, '--latency', '-s', o.script]
  for (const [k, v] of Object.entries(o.headers ?? {})) cmd.push('-H', `${k}: ${v}`)
  cmd.push(o.url)
  const p = Bun.spawn(cmd, { env: { ...process.env, ...o.env }, stdout: 'pipe', stderr: 'pipe' })
  children.add(p)
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()])
  await p.exited
  children.delete(p)
  if (p.exitCode !== 0) throw new Error(`wrk failed (${p.exitCode}): ${err || out}`)
  // taskset exec()s wrk, so the child's rusage is wrk's own.
  return { ...parseWrk(out), cpuSeconds: Number(p.resourceUsage()?.cpuTime.total ?? NaN) / 1e6 }
}

// ---- Added for scripts/soak.ts and scripts/crash.ts (additive; nothing above changed) ----

/**
 * Like spawn(), but stdout and stderr go to `logPath` (appended), so a caller can read what the child
 * printed (e.g. svc's "stopped cleanly") and show it when something fails. The child is reaped by killAll().
 */
export function spawnLogged(cmd: string[], env: Record<string, string | undefined>, logPath: string): Subprocess {
  const fd = openSync(logPath, 'a')
  const p = Bun.spawn(cmd, { env: { ...process.env, ...env }, stdin: 'ignore', stdout: fd, stderr: fd })
  closeSync(fd) // the child holds its own copy
  children.add(p)
  p.exited.then(() => children.delete(p))
  return p
}

/** SIGKILLs every child at once, synchronously: for process 'exit' handlers, where nothing can be awaited. */
export function killAllSync(): void {
  for (const p of children) {
    if (p.exitCode === null && p.signalCode === null) {
      try {
        p.kill('SIGKILL')
      } catch {}
    }
  }
}

/** dist/svc when it is newer than every file of src/, drizzle/ and drizzle-pg/, else `bun src/index.ts` (a stale build is never run). */
export function svcCommand(root: string): { cmd: string[]; label: string } {
  const bin = join(root, 'dist', 'svc')
  if (existsSync(bin)) {
    const newest = (dir: string): number =>
      readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
        const p = join(dir, e.name)
        return Math.max(m, e.isDirectory() ? newest(p) : statSync(p).mtimeMs)
      }, 0)
    const sources = ['src', 'drizzle', 'drizzle-pg'].map((d) => join(root, d)).filter((d) => existsSync(d))
    if (statSync(bin).mtimeMs > Math.max(...sources.map(newest))) {
      return { cmd: [bin], label: 'dist/svc' }
    }
  }
  return { cmd: [process.execPath, join(root, 'src', 'index.ts')], label: 'bun src/index.ts' }
}
