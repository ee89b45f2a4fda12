// db/pg/one-statement.ts on a real Postgres: parts sent as one statement run in the order given (Postgres runs
// unread data-modifying CTEs last-listed first, so the builder lists them in reverse), commit or fail together,
// and a StatementCollector gathers writes instead of sending them. Postgres only.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { NotCollectable, sendTogether, StatementCollector, together } from '../../src/db/pg/one-statement'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

const skip = process.env.SVC_TEST_ENGINE !== 'postgres' || !pgAvailable().ok
let db: PgDatabase
const rows = async (text: string, ...params: unknown[]) => (await db.sql.unsafe(text, params as never[])) as Array<Record<string, unknown>>

beforeAll(async () => {
  if (skip) return
  db = await openPg(await freshPgUrl())
  // `seq` numbers the rows in the order they were written; `n` may not be negative (a failing part).
  await rows('CREATE TABLE written (seq bigserial PRIMARY KEY, part text NOT NULL, n int CHECK (n >= 0))')
}, 60_000)
afterAll(async () => { await db?.close() })

const insert = (part: string) => ['INSERT INTO written (part, n) VALUES ($1, $2)', [part, 1]] as const

describe.skipIf(skip)('one statement (Postgres)', () => {
  test('parts run in the order given, with their own parameters', async () => {
    await sendTogether(db.sql, [insert('a'), insert('b'), insert('c'), insert('d')])
    const got = await rows("SELECT part FROM written WHERE part IN ('a', 'b', 'c', 'd') ORDER BY seq")
    expect(got.map((r) => r.part)).toEqual(['a', 'b', 'c', 'd'])
  })

  test('a failing part fails the statement with the server\'s error, and no part is written', async () => {
    const err = await sendTogether(db.sql, [insert('e'), ['INSERT INTO written (part, n) VALUES ($1, $2)', ['f', -1]], insert('g')])
      .then(() => null, (e) => e as { code?: string; errno?: string })
    expect(err?.code).toBe('ERR_POSTGRES_SERVER_ERROR')
    expect(err?.errno).toBe('23514') // check_violation
    expect(await rows("SELECT part FROM written WHERE part IN ('e', 'f', 'g')")).toEqual([])
  })

  test('a collector gathers writes (through together() too) and sends them as one statement, in order', async () => {
    const c = new StatementCollector()
    await expect(c.unsafe(...insert('h'))).resolves.toEqual([])
    await together(c, [insert('i'), insert('j')])
    c.first(...insert('first'))
    expect(await rows("SELECT part FROM written WHERE part IN ('first', 'h', 'i', 'j')")).toEqual([]) // nothing sent yet
    await c.send(db.sql)
    const got = await rows("SELECT part FROM written WHERE part IN ('first', 'h', 'i', 'j') ORDER BY seq")
    expect(got.map((r) => r.part)).toEqual(['first', 'h', 'i', 'j'])
    expect(c.refused).toBeNull()
  })

  test('a collector refuses what it cannot gather: a tagged template, RETURNING, a write after send', async () => {
    const c = new StatementCollector()
    const tagged = c as unknown as (s: TemplateStringsArray) => unknown
    expect(() => tagged`SELECT 1`).toThrow(NotCollectable)
    expect(c.refused).toBeInstanceOf(NotCollectable)
    const r = new StatementCollector()
    expect(() => r.unsafe('INSERT INTO written (part) VALUES ($1) RETURNING seq', ['k'])).toThrow(NotCollectable)
    const s = new StatementCollector()
    await s.send(db.sql)
    expect(() => s.unsafe(...insert('l'))).toThrow(NotCollectable)
    expect(await rows("SELECT part FROM written WHERE part IN ('k', 'l')")).toEqual([])
  })
})
