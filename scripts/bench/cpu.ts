// CPU accounting for benchmark rounds (Linux /proc): how many cores' worth of CPU a set of processes used
// during a round, and how busy each core was. Tells which side limits a figure (svc's core, or Postgres and
// wrk sharing the other) on a machine where other work also runs.
import { readFileSync } from 'node:fs'

const TICK = 100 // USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK)

/** utime + stime of each process in seconds; a process that is gone counts 0. */
function cpuSeconds(pids: readonly number[]): number {
  let ticks = 0
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      ticks += Number(f[11]) + Number(f[12]) // fields 14 and 15 of the whole line
    } catch {}
  }
  return ticks / TICK
}

/** [busy, total] jiffies per core from /proc/stat. */
function coreTimes(): Array<[number, number]> {
  const out: Array<[number, number]> = []
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const m = /^cpu(\d+) (.*)$/.exec(line)
    if (!m) continue
    const v = m[2]!.trim().split(/\s+/).map(Number)
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0) // guest time is already inside user
    const idle = v[3]! + v[4]! // idle + iowait
    out[Number(m[1])] = [total - idle, total]
  }
  return out
}

export interface CpuUse {
  /** Cores' worth of CPU per group of processes (1.0 = one core all the time). */
  groups: Record<string, number>
  /** Busy share of each core, 0..1, whoever used it (other work on this machine included). */
  cores: number[]
}

/**
 * Starts measuring; the returned function ends it. `groups` are re-read at the end too (Postgres forks a
 * backend per new connection), and a process is counted from the start only when it existed then.
 */
export function measureCpu(groups: Record<string, () => number[]>): () => CpuUse {
  const t0 = performance.now()
  const startPids = Object.fromEntries(Object.entries(groups).map(([k, f]) => [k, f()]))
  const start = Object.fromEntries(Object.entries(startPids).map(([k, p]) => [k, cpuSeconds(p)]))
  const cores0 = coreTimes()
  return () => {
    const wall = (performance.now() - t0) / 1000
    const cores1 = coreTimes()
    const out: CpuUse = { groups: {}, cores: cores1.map(([b, t], i) => (b - cores0[i]![0]) / Math.max(1, t - cores0[i]![1])) }
    for (const [k, f] of Object.entries(groups)) {
      const before = new Set(startPids[k])
      const now = f()
      // Processes that appeared during the round count whole (their CPU all falls in the round).
      const fresh = now.filter((p) => !before.has(p))
      out.groups[k] = (cpuSeconds(now.filter((p) => before.has(p))) - start[k]! + cpuSeconds(fresh)) / wall
      // A process of the start set that exited took its time with it: the figure is then a lower bound.
    }
    return out
  }
}

export const fmtCpu = (c: CpuUse) =>
  Object.entries(c.groups).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ') + `; cores busy ${c.cores.map((x) => `${Math.round(x * 100)}%`).join('/')}`
