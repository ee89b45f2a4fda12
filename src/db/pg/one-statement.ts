// Several writes sent to Postgres as ONE statement: each write a data-modifying CTE of one WITH. On the
// 2-core machine every statement and every BEGIN/COMMIT exchanged costs Postgres more CPU than the rows it
// writes (docs/performance.md, sessions 17-18), so the hot paths fold their writes together:
//   - together(tx, parts): one statement in the caller's transaction (or, through a collector, in its batch's);
//   - StatementCollector: stands in for a transaction handle while a batch's writes are gathered, then sends
//     them as one autocommitted statement (the postback batch's one-statement path, postback/pg-batch.ts).
//
// Order. Postgres runs data-modifying CTEs that the main query does not read after it, last-listed first
// (test/db/pg-one-statement.test.ts pins it): parts are listed in reverse so that they run, and lock
// their rows, in the order given. Row triggers (the hourly → daily rollup triggers) fire at the end of the
// statement, after every part. No part sees another's rows, no row may be written by two parts, and no part
// may return rows (RETURNING): a gathered write has no result to give back.
import type { SQL } from 'bun'
import { withArrayLiterals } from './array-literal'

/** One write: its SQL (parameters $1…$n) and its parameters. */
export type Part = readonly [sql: string, params: readonly unknown[]]

const built = new Map<string, string>()
const MAX_BUILT = 256

/** The WITH statement for these parts' SQL (cached by their text: a batch repeats the same few shapes). */
function build(sqls: readonly string[]): string {
  const key = sqls.join('\u0000')
  let b = built.get(key)
  if (b) return b
  let offset = 0
  const ctes = sqls.map((sql, i) => {
    if (/\bRETURNING\b/i.test(sql)) throw new Error(`one statement: part ${i} returns rows, which a part cannot give back`)
    let count = 0
    const renumbered = sql.replace(/\$(\d+)/g, (_, n: string) => {
      count = Math.max(count, Number(n))
      return `$${Number(n) + offset}`
    })
    offset += count
    return `w${i} AS (${renumbered})`
  })
  b = `WITH ${ctes.reverse().join(', ')} SELECT 1 AS done`
  if (built.size >= MAX_BUILT) built.clear()
  built.set(key, b)
  return b
}

/**
 * Sends `parts` as one statement through `q` (a transaction; a pooled handle commits it alone), in this order.
 * Every part casts its array parameters (`$n::type[]`), so they go as svc-built array literals (array-literal.ts).
 */
export async function sendTogether(q: SQL, parts: readonly Part[]): Promise<void> {
  if (parts.length === 0) return
  if (parts.length === 1) await q.unsafe(parts[0]![0], withArrayLiterals(parts[0]![1]))
  else await q.unsafe(build(parts.map((p) => p[0])), withArrayLiterals(parts.flatMap((p) => p[1] as unknown[])))
}

/** Thrown when a write cannot be gathered (not through unsafe(), returns rows, or comes after seal()). */
export class NotCollectable extends Error {}

/**
 * Stands in for a transaction handle (`Tx`) while a batch runs: `unsafe(sql, params)` gathers the write and
 * resolves at once with no rows (it runs when the batch is sent). Anything else (a tagged template, RETURNING,
 * a write after seal()) throws NotCollectable and sets `refused`: the caller then runs the batch the ordinary
 * way, in a transaction. Reads must not go through it.
 */
export class StatementCollector {
  private parts: Part[] = []
  private sealed = false
  /** The first write refused, if any: the batch must not be sent as one statement. */
  refused: NotCollectable | null = null

  constructor() {
    // Called as a tagged template (`tx\`…\``): not gatherable.
    const self: StatementCollector = Object.setPrototypeOf(() => self.refuse('a tagged-template query'), StatementCollector.prototype)
    Object.assign(self, { parts: [], sealed: false, refused: null })
    return self
  }

  private refuse(what: string): never {
    const e = new NotCollectable(`not gathered into the batch's statement: ${what}`)
    this.refused ??= e
    throw e
  }

  /** Gathers one write, after those gathered before it. */
  unsafe(sql: string, params: readonly unknown[] = []): Promise<unknown[]> {
    if (this.sealed) this.refuse('a write issued after the batch was sealed')
    if (/\bRETURNING\b/i.test(sql)) this.refuse('a write that returns rows')
    this.parts.push([sql, params])
    return Promise.resolve([])
  }

  /** Adds a write of the batch itself, before every write gathered so far (its rows before its subscribers'). */
  first(sql: string, params: readonly unknown[]): void {
    this.parts.unshift([sql, params])
  }

  /** Runs every gathered write as one statement on `pool`, committed alone; nothing can be gathered after. */
  send(pool: SQL): Promise<void> {
    this.sealed = true
    return sendTogether(pool, this.parts)
  }
}

/**
 * `parts` as one statement through `tx`: a transaction handle sends them now; a StatementCollector gathers
 * them into its batch's statement, in this order.
 */
export async function together(tx: SQL | StatementCollector, parts: readonly Part[]): Promise<void> {
  if (tx instanceof StatementCollector) {
    // Gathered in one go: no other subscriber's write lands between these.
    for (const [sql, params] of parts) void tx.unsafe(sql, params)
  } else await sendTogether(tx, parts)
}
