// Cleanup that outlives a killed test run. `bun test` (1.4) emits neither 'exit' nor 'beforeExit', and a
// run killed by a timeout or Ctrl-C runs no handler at all, so what a test starts outside its own process
// (a Postgres cluster, an `svc serve` child) would be left running. A detached shell per resource waits
// for the test process to end, then runs the cleanup.
import { spawn } from 'node:child_process'

/** Quotes one argument for sh. */
export const shQuote = (a: string): string => `'${a.replace(/'/g, `'\\''`)}'`

/** Runs the sh `command` once this test process has ended (however it ended). */
export function afterTestProcess(command: string): void {
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 0.2; done; ${command}`
  spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' }).unref()
}

/**
 * An `svc serve` child that must not outlive the test process: SIGKILLed when the run ends. A no-op when it
 * already exited; the command-line check keeps a recycled pid of some other process safe.
 */
export function reapWithTestProcess(pid: number): void {
  afterTestProcess(`grep -q serve /proc/${pid}/cmdline 2>/dev/null && kill -9 ${pid} >/dev/null 2>&1`)
}
