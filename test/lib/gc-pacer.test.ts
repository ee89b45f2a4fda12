// The GC pacer (src/lib/gc-pacer.ts): eden collections while the process is busy, none while it idles.
// Its effect on memory is measured by `npm run soak`; here, when it collects and when it does not.
import { describe, expect, test } from 'bun:test'
import { loadConfig, ConfigError } from '../../src/config'
import { join } from 'node:path'
import { startGcPacer } from '../../src/lib/gc-pacer'

describe('GC pacer', () => {
  test('0 turns it off', () => {
    expect(startGcPacer(0)).toBeNull()
  })

  test('collects at its pace while the process is busy, not at all while it idles, and never once stopped', () => {
    // In a process of its own: other tests' servers and threads would make this one busy.
    const child = Bun.spawnSync([process.execPath, join(import.meta.dir, 'gc-pacer-child.ts'), '20'], { stderr: 'pipe' })
    expect(child.exitCode).toBe(0)
    const counts = JSON.parse(child.stdout.toString().trim()) as Record<'idle' | 'busy' | 'settled' | 'idleAgain' | 'stopped', number>
    // 300 ms idle: every tick found less than 10 % CPU, but for at most one straggler of the child's own
    // start-up (JSC compiling its modules; seen once in a loaded CI run), never one per tick as while busy.
    expect(counts.idle).toBeLessThanOrEqual(1)
    // 400 ms busy is ~20 ticks of 20 ms; timers run late on a loaded machine, so only a floor is pinned.
    expect(counts.busy).toBeGreaterThanOrEqual(5)
    // Idle again for 30 ticks: a few stragglers at most (JSC's compiler threads finish the busy spell's
    // compilations late, the more so on a loaded machine, and their CPU is this process's: 0-2 seen alone,
    // up to 7 inside the full suite), never a collection per tick as while busy.
    expect(counts.idleAgain - counts.settled).toBeLessThanOrEqual(10)
    expect(counts.stopped).toBe(counts.idleAgain) // stopped, busy: nothing more
  })

  test('SVC_GC_PACE_MS: 50 ms unless set, 0 allowed, anything else but a whole number refused', () => {
    const env = { SVC_DATABASE_URL: 'postgres://u:p@127.0.0.1:1/db', SVC_SECRET: 'x'.repeat(32) }
    expect(loadConfig(env).gcPaceMs).toBe(50)
    expect(loadConfig({ ...env, SVC_GC_PACE_MS: '0' }).gcPaceMs).toBe(0)
    expect(loadConfig({ ...env, SVC_GC_PACE_MS: '200' }).gcPaceMs).toBe(200)
    expect(() => loadConfig({ ...env, SVC_GC_PACE_MS: 'fast' })).toThrow(new ConfigError('SVC_GC_PACE_MS must be a whole number, got "fast"'))
    expect(() => loadConfig({ ...env, SVC_GC_PACE_MS: '60001' })).toThrow(ConfigError)
  })
})
