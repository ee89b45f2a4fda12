// A new Postgres connection's first statement against the same statement on a warm connection, with
// huge_pages off and on, side by side in one run (docs/postgres-tuning.md, `huge_pages`). A backend's first
// touch of each page of shared memory is a page fault; svc's pool replaces connections idle for a minute, so
// the first report on a quiet instance pays them.
//
//   bun scripts/bench-pg-fresh-connection.ts
//
// Each case: a throwaway durable cluster (scripts/bench/pg-cluster.ts) on core 1, a table of 200,000 rows of
// ~330 bytes with an index on the time column, then BENCH_FRESH_CONNECTIONS (8) new connections, each
// timing a 25,000-row index range scan twice. The `on` case needs huge pages reserved by the kernel
// (`sysctl -w vm.nr_hugepages=150` as root covers the default 128 MB of shared_buffers); without them it is
// skipped and says so.
import { SQL } from 'bun'
import { hugePages, startBenchCluster } from './bench/pg-cluster'

const CONNECTIONS = Number(process.env.BENCH_FRESH_CONNECTIONS ?? 8)
const SCAN = 'SELECT device, count(*) AS n FROM t WHERE created_at >= $1 AND created_at < $2 GROUP BY device'
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!


async function measure(mode: 'off' | 'on'): Promise<{ first: number; second: number } | null> {
  if (mode === 'on' && hugePages().free - hugePages().reserved < 70) return null
  const cluster = await startBenchCluster(['taskset', '-c', '1'], `-c huge_pages=${mode}`)
  try {
    const url = await cluster.createDatabase('fresh')
    const setup = new SQL(url, { max: 1 })
    await setup.unsafe('CREATE TABLE t (id bigserial PRIMARY KEY, created_at int8, device text, pad text)')
    await setup.unsafe("INSERT INTO t (created_at, device, pad) SELECT g, (ARRAY['mobile','desktop','tablet'])[1 + g % 3], repeat('x', 300) FROM generate_series(1, 200000) g")
    await setup.unsafe('CREATE INDEX ON t (created_at)')
    await setup.unsafe('VACUUM ANALYZE t')
    await setup.unsafe(SCAN, [50_000, 75_000]) // the table's pages in shared buffers before any timed scan
    await setup.close()
    const first: number[] = []
    const second: number[] = []
    for (let i = 0; i < CONNECTIONS; i++) {
      const q = new SQL(url, { max: 1 })
      await q`SELECT 1`
      for (const into of [first, second]) {
        const t = performance.now()
        await q.unsafe(SCAN, [50_000, 75_000])
        into.push(performance.now() - t)
      }
      await q.close()
    }
    return { first: median(first), second: median(second) }
  } finally {
    cluster.stop()
  }
}

console.log(`a new connection's first 25,000-row index scan against its second, ${CONNECTIONS} connections, medians`)
for (const mode of ['off', 'on'] as const) {
  const r = await measure(mode)
  console.log(r
    ? `huge_pages=${mode}: first ${r.first.toFixed(1)} ms, second ${r.second.toFixed(1)} ms`
    : `huge_pages=${mode}: skipped, the kernel has no huge pages free (sysctl -w vm.nr_hugepages=150 as root)`)
}
