// CPU accounting for benchmark rounds (Linux /proc): how many cores' worth of CPU a set of processes used
// during a round, and how busy each core was. Tells which side limits a figure (svc's core, or Postgres and
// wrk sharing the other) on a machine where other work also runs.
import { readFileSync } from 'node:fs'

const TICK = 100 // USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK)

/**
 * utime + stime of each process still running, plus cutime + cstime: what its exited, reaped children used
 * (the postmaster reaps the backend of every closed connection, so their time stays counted), in seconds.
 */
function cpuSeconds(pids: readonly number[]): Map<number, number> {
  const out = new Map<number, number>()
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      out.set(pid, (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / TICK) // fields 14–17 of the line
    } catch {}
  }
  return out
}

/** CPU seconds the processes used so far, summed (their reaped children's included, see cpuSeconds). */
export const totalCpuSeconds = (pids: readonly number[]): number => [...cpuSeconds(pids).values()].reduce((a, b) => a + b, 0)

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
 * Starts measuring; the returned function ends it. The groups are read again at the end (Postgres forks a
 * backend per new connection): a process born during the round counts whole; one that exited during it is
 * counted through its parent's cutime when the parent is in the group too.
 */
export function measureCpu(groups: Record<string, () => number[]>): () => CpuUse {
  const t0 = performance.now()
  const start = Object.fromEntries(Object.entries(groups).map(([k, f]) => [k, totalCpuSeconds(f())]))
  const cores0 = coreTimes()
  return () => {
    const wall = (performance.now() - t0) / 1000
    const cores1 = coreTimes()
    const out: CpuUse = { groups: {}, cores: cores1.map(([b, t], i) => (b - cores0[i]![0]) / Math.max(1, t - cores0[i]![1])) }
    for (const [k, f] of Object.entries(groups)) {
      // Totals, not per process: a backend that exited moved its whole time into the postmaster's cutime.
      out.groups[k] = (totalCpuSeconds(f()) - start[k]!) / wall
    }
    return out
  }
}

export const fmtCpu = (c: CpuUse) =>
  Object.entries(c.groups).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ') + `; cores busy ${c.cores.map((x) => `${Math.round(x * 100)}%`).join('/')}`
