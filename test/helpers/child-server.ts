// `svc serve` as a child process from source, with its stdout and stderr captured line by line: for tests
// of what an operator sees in the log (the in-process servers of helpers/server.ts share the test's console).
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { reapWithTestProcess } from './reaper'

const ROOT = join(import.meta.dir, '..', '..')

export interface ChildServer {
  base: string
  /** Lines written so far, each with the stream it went to. */
  lines: Array<{ stream: 'stdout' | 'stderr'; text: string }>
  /** Everything written so far, both streams. */
  output(): string
  /** Resolves with the first line (from `from` on) matching, or rejects after timeoutMs. */
  waitFor(match: RegExp | ((line: string) => boolean), timeoutMs?: number, from?: number): Promise<string>
  /** SIGTERM, then waits for the exit; resolves with the exit code. */
  stop(): Promise<number>
  /** SIGKILL (a crash: nothing is finished), then waits for the exit. */
  kill(): Promise<number>
}

export async function startChild(env: Record<string, string>): Promise<ChildServer> {
  const proc: Subprocess<'ignore', 'pipe', 'pipe'> = Bun.spawn([process.execPath, join(ROOT, 'src/index.ts'), 'serve'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  reapWithTestProcess(proc.pid) // a killed test run leaves no server behind
  const lines: ChildServer['lines'] = []
  const waiters = new Set<() => void>()
  const pump = async (stream: ReadableStream<Uint8Array>, name: 'stdout' | 'stderr') => {
    const decoder = new TextDecoder()
    let rest = ''
    for await (const chunk of stream) {
      rest += decoder.decode(chunk, { stream: true })
      const parts = rest.split('\n')
      rest = parts.pop()!
      for (const text of parts) lines.push({ stream: name, text })
      for (const w of waiters) w()
    }
  }
  void pump(proc.stdout, 'stdout')
  void pump(proc.stderr, 'stderr')

  const waitFor: ChildServer['waitFor'] = (match, timeoutMs = 10_000, from = 0) => {
    const test = typeof match === 'function' ? match : (l: string) => match.test(l)
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = lines.slice(from).find((l) => test(l.text))
        if (hit) {
          waiters.delete(check)
          clearTimeout(timer)
          resolve(hit.text)
        }
      }
      const timer = setTimeout(() => {
        waiters.delete(check)
        reject(new Error(`no log line matched ${String(match)} within ${timeoutMs} ms; output:\n${lines.map((l) => l.text).join('\n')}`))
      }, timeoutMs)
      waiters.add(check)
      check()
    })
  }

  const start = await waitFor((l) => l.includes('svc started'), 15_000)
  const address = /(?:address=|"address":")(http:\/\/[^\s"]+)/.exec(start)
  if (!address) throw new Error(`no address in the start line: ${start}`)
  return {
    base: address[1]!,
    lines,
    output: () => lines.map((l) => l.text).join('\n'),
    waitFor,
    async stop() {
      proc.kill('SIGTERM')
      return await proc.exited
    },
    async kill() {
      proc.kill('SIGKILL')
      return await proc.exited
    },
  }
}
