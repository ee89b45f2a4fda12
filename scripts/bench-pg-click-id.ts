// The click-id index on Postgres (drizzle-pg/0034, docs/postgres.md): the UNIQUE B-tree on (click_id, created_at)
// it replaced against the hash index on click_id, side by side in one throwaway DURABLE cluster
// (scripts/bench/pg-cluster.ts). Two tables shaped like a day partition's click-id column (id, a v4 UUID as text,
// created_at), BENCH_ROWS rows each (default 2,000,000), then:
//   1. the index build over them (wall time and Postgres CPU), and its size;
//   2. inserts of 64 new ids per statement (a click batch's shape), 300 statements a round in one transaction so
//      that no commit flush is timed, alternating the two tables over 6 rounds: Postgres CPU per row, median;
//   3. lookups by click id in the day's range (the tracker's and the postback's probe): Postgres CPU per lookup.
// CPU is the cluster's (postmaster, backends and reaped children, /proc), so other load on the machine does not
// count; the figures are still from a shared VM: compare the two columns, not runs.
// Usage: bun scripts/bench-pg-click-id.ts   (BENCH_ROWS=5000000 to vary)
import { SQL } from 'bun'
import { totalCpuSeconds } from './bench/cpu'
import { startBenchCluster } from './bench/pg-cluster'

const ROWS = Number(process.env.BENCH_ROWS ?? 2_000_000)
const DAY = 1_796_083_200_000 // a UTC day start: every row is of that day, as in one partition
const ROUNDS = 6
const BATCHES = 300
const LOOKUPS = 5000

const cluster = await startBenchCluster([])
/** CPU seconds the cluster's processes used so far (postmaster, backends, reaped children). */
const cpu = () => totalCpuSeconds(cluster.pids())
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!

const KINDS = {
  btree: 'CREATE UNIQUE INDEX btree_idx ON btree (click_id, created_at)',
  hash: 'CREATE INDEX hash_idx ON hash USING hash (click_id)',
} as const
type Kind = keyof typeof KINDS

try {
  const sql = new SQL(await cluster.createDatabase('clickid'), { max: 1 })
  console.log(`PostgreSQL ${cluster.version}; ${ROWS.toLocaleString('en')} rows per table`)
  for (const kind of Object.keys(KINDS) as Kind[]) {
    await sql.unsafe(`CREATE TABLE ${kind} (id bigserial PRIMARY KEY, click_id text NOT NULL, created_at int8 NOT NULL)`)
    await sql.unsafe(`INSERT INTO ${kind} (click_id, created_at) SELECT gen_random_uuid()::text, ${DAY} + g FROM generate_series(1, ${ROWS}) g`)
    await sql.unsafe(`VACUUM ANALYZE ${kind}`)
    const c0 = cpu()
    const t0 = performance.now()
    await sql.unsafe(KINDS[kind])
    const [{ size }] = await sql.unsafe(`SELECT pg_size_pretty(pg_relation_size('${kind}_idx')) AS size`)
    console.log(`${kind}: build ${((performance.now() - t0) / 1000).toFixed(2)} s, Postgres CPU ${(cpu() - c0).toFixed(2)} s; index ${size}`)
  }

  const insert: Record<Kind, number[]> = { btree: [], hash: [] }
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of (round % 2 ? ['hash', 'btree'] : ['btree', 'hash']) as Kind[]) {
      const c0 = cpu()
      await sql.begin(async (tx) => {
        for (let i = 0; i < BATCHES; i++) {
          const ids = Array.from({ length: 64 }, () => `"${crypto.randomUUID()}"`).join(',')
          await tx.unsafe(`INSERT INTO ${kind} (click_id, created_at) SELECT u, ${DAY} FROM unnest($1::text[]) u`, [`{${ids}}`])
        }
      })
      insert[kind].push(((cpu() - c0) * 1e6) / (BATCHES * 64))
    }
  }
  const rounds = (k: Kind) => insert[k].map((x) => x.toFixed(1)).join(' / ')
  console.log(`insert, Postgres CPU per row (rounds): btree ${rounds('btree')}; hash ${rounds('hash')}`)
  console.log(`insert, median: btree ${median(insert.btree).toFixed(1)} µs, hash ${median(insert.hash).toFixed(1)} µs`)

  const lookup: Record<Kind, number> = { btree: 0, hash: 0 }
  for (const kind of ['btree', 'hash', 'hash', 'btree'] as Kind[]) {
    const ids = (await sql.unsafe(`SELECT click_id FROM ${kind} ORDER BY random() LIMIT ${LOOKUPS}`)).map((r: { click_id: string }) => r.click_id)
    const c0 = cpu()
    for (const id of ids) await sql.unsafe(`SELECT id FROM ${kind} WHERE click_id = $1 AND created_at >= ${DAY} AND created_at < ${DAY + 86_400_000}`, [id])
    lookup[kind] += ((cpu() - c0) * 1e6) / LOOKUPS / 2
  }
  console.log(`lookup by click id, Postgres CPU per lookup: btree ${lookup.btree.toFixed(0)} µs, hash ${lookup.hash.toFixed(0)} µs`)
  await sql.close()
} finally {
  cluster.stop()
}
