// Runs the svc CLI as a real child process (bun src/index.ts), as an operator would.
import { mkdtempSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { reapWithTestProcess } from './reaper'

export const ROOT = join(import.meta.dir, '..', '..')
export const SVC = [process.execPath, join(ROOT, 'src/index.ts')]

export interface CliResult {
  code: number | null
  out: string
  err: string
}

/** Runs one command to its end (killed after 20 s, so a command that wrongly starts a server fails the test). */
export function svc(args: string[], env: Record<string, string> = {}, opts: { cwd?: string; stdin?: string } = {}): CliResult {
  const p = Bun.spawnSync([...SVC, ...args], {
    cwd: opts.cwd ?? tmpdir(),
    env: { PATH: process.env.PATH ?? '', ...env },
    stdin: opts.stdin === undefined ? 'ignore' : Buffer.from(opts.stdin),
    timeout: 20_000,
  })
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() }
}

export const emptyDir = (prefix = 'svc-cli-') => mkdtempSync(join(tmpdir(), prefix))

/** Octal permission bits of a file, e.g. "600". */
export const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)

export interface ServeChild {
  proc: Subprocess<'ignore', 'pipe', 'pipe'>
  port: number
  base: string
  /** Everything printed on stdout up to "svc started". */
  out: string
  /** SIGTERM, then the exit code. */
  stop(): Promise<number>
}

/** Starts `svc serve` and waits for its "svc started" line (fails with the child's stderr if it exits first). */
export async function serveChild(env: Record<string, string>, cwd?: string): Promise<ServeChild> {
  const proc = Bun.spawn([...SVC, 'serve'], {
    cwd: cwd ?? tmpdir(),
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  reapWithTestProcess(proc.pid) // a killed test run leaves no server behind
  const reader = proc.stdout.getReader()
  const decoder = new TextDecoder()
  let out = ''
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    const m = /svc started .*address=http:\/\/[^\s]+:(\d+)/.exec(out)
    if (m) {
      reader.releaseLock()
      const port = Number(m[1])
      return {
        proc, port, base: `http://127.0.0.1:${port}`, out,
        async stop() {
          proc.kill('SIGTERM')
          return await proc.exited
        },
      }
    }
    const { value, done } = await reader.read()
    if (done) break
    out += decoder.decode(value)
  }
  proc.kill('SIGKILL')
  throw new Error(`svc serve did not start: ${out}\n${await new Response(proc.stderr).text()}`)
}
