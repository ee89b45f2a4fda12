// The dialect layer (src/db/sql.ts, src/db/store-db.ts): one query text, both engines. Rendering is pinned
// exactly; the runner is exercised against a real SQLite file and a real Postgres database.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { empty, inList, join, raw, renderPg, renderSqlite, sql, whereAll, type Sql } from '../../src/db/sql'
import { storeDb, type StoreDb } from '../../src/db/store-db'
import { isUniqueViolation, violation } from '../../src/db/errors'
import { ENGINES, openFresh, type OpenedDb } from '../users/pg-engines'

describe('rendering', () => {
  test('values are bound, never spliced: $pN by name on SQLite, $N in order on Postgres', () => {
    const name = "x'); DROP TABLE users; --"
    const q = sql`SELECT * FROM users WHERE email = ${name} AND id > ${3}`
    expect(renderSqlite(q)).toEqual({ text: 'SELECT * FROM users WHERE email = $p1 AND id > $p2', params: { p1: name, p2: 3 } })
    expect(renderPg(q)).toEqual({ text: 'SELECT * FROM users WHERE email = $1 AND id > $2', values: [name, 3] })
  })

  test('fragments splice in with their values renumbered; raw text is the code\'s own', () => {
    const cond = sql`a = ${1}`
    const q = sql`SELECT ${raw('id, name')} FROM t ${whereAll([cond, undefined, false, sql`b IN ${inList(['x', 'y'])}`])} LIMIT ${10}`
    expect(renderPg(q)).toEqual({ text: 'SELECT id, name FROM t WHERE a = $1 AND b IN ($2, $3) LIMIT $4', values: [1, 'x', 'y', 10] })
    expect(renderSqlite(sql`x${empty}y`).text).toBe('xy')
    expect(renderPg(join([sql`${1}`, sql`${2}`], ' + ')).text).toBe('$1 + $2')
    expect(renderPg(sql`id IN ${inList([])}`).text).toBe('id IN (NULL)')
    expect(renderPg(whereAll([undefined])).text).toBe('')
  })

  test('the same pieces compose the same strings array (its text rendered once); other pieces, other text', () => {
    const cols = raw('id, name')
    const byId = (id: number, lock: Sql) => sql`SELECT ${cols} FROM t WHERE id = ${id}${lock}`
    const a = byId(1, empty)
    const b = byId(2, empty)
    expect(b.strings).toBe(a.strings)
    expect(renderPg(b)).toEqual({ text: 'SELECT id, name FROM t WHERE id = $1', values: [2] })
    const locked = byId(3, raw(' FOR UPDATE'))
    expect(locked.strings).not.toBe(a.strings)
    expect(renderPg(locked)).toEqual({ text: 'SELECT id, name FROM t WHERE id = $1 FOR UPDATE', values: [3] })
    // A fragment built per call (join) is spliced correctly, just not remembered.
    expect(renderSqlite(sql`x ${join([sql`${1}`, sql`${2}`])} y ${3}`)).toEqual({ text: 'x $p1, $p2 y $p3', params: { p1: 1, p2: 2, p3: 3 } })
  })

  test('booleans bind as 1/0 (integer flags on both engines); undefined is a wiring bug', () => {
    expect(renderSqlite(sql`${true}, ${false}`).params).toEqual({ p1: 1, p2: 0 })
    expect(renderPg(sql`${true}`).values).toEqual([1])
    expect(() => renderPg(sql`${undefined}`)).toThrow('undefined value')
  })
})

for (const engine of ENGINES) {
  describe.skipIf(engine.skip)(`StoreDb on ${engine.name}`, () => {
    let opened: OpenedDb
    let db: StoreDb

    beforeAll(async () => {
      opened = await openFresh(engine.name)
      db = storeDb(opened.db)
      await db.run(sql`CREATE TABLE t_dialect (id integer PRIMARY KEY, name text NOT NULL UNIQUE, at bigint NOT NULL, flag integer NOT NULL)`)
    })
    afterAll(async () => { await opened?.close() })

    test('rows read back with int8 columns as numbers; run counts the rows changed', async () => {
      expect(await db.run(sql`INSERT INTO t_dialect (id, name, at, flag) VALUES (${1}, ${'a'}, ${1_795_600_000_000}, ${true})`)).toBe(1)
      const row = await db.get<{ id: number; name: string; at: number; flag: number }>(sql`SELECT * FROM t_dialect WHERE name = ${'a'}`, ['at'])
      expect(row).toEqual({ id: 1, name: 'a', at: 1_795_600_000_000, flag: 1 })
      expect(await db.get(sql`SELECT * FROM t_dialect WHERE name = ${'nobody'}`)).toBeUndefined()
      expect(await db.run(sql`UPDATE t_dialect SET flag = ${false} WHERE id IN ${inList([1, 2])}`)).toBe(1)
      expect(await db.all(sql`SELECT id, flag FROM t_dialect ORDER BY id`)).toEqual([{ id: 1, flag: 0 }])
    })

    test('atomically: a throw rolls back every step; a step\'s value comes back at its yield', async () => {
      const failed = db.atomically(function* (q) {
        yield q.run(sql`INSERT INTO t_dialect (id, name, at, flag) VALUES (${2}, ${'b'}, ${0}, ${0})`)
        const n: { n: number } | undefined = yield q.get(sql`SELECT count(*) AS n FROM t_dialect`, ['n'])
        expect(Number(n!.n)).toBe(2) // the transaction sees its own write
        throw new Error('rule refused')
      })
      await expect(failed).rejects.toThrow('rule refused')
      expect(await db.all(sql`SELECT id FROM t_dialect ORDER BY id`)).toEqual([{ id: 1 }])
      const value = await db.atomically(function* (q) {
        yield db.lockTable(q, 't_dialect')
        yield q.run(sql`INSERT INTO t_dialect (id, name, at, flag) VALUES (${2}, ${'b'}, ${0}, ${0})`)
        const row: { name: string } | undefined = yield q.get(sql`SELECT name FROM t_dialect WHERE id = ${2}`)
        return row!.name
      })
      expect(value).toBe('b')
    })

    test('a constraint violation is classified the same on both engines', async () => {
      const err = await db.run(sql`INSERT INTO t_dialect (id, name, at, flag) VALUES (${3}, ${'a'}, ${0}, ${0})`).catch((e) => e)
      expect(isUniqueViolation(err)).toBe(true)
      const nn = await db.run(sql`INSERT INTO t_dialect (id, name, at, flag) VALUES (${4}, ${null}, ${0}, ${0})`).catch((e) => e)
      expect(violation(nn)).toBe('not_null')
      expect(violation(new Error('other'))).toBeNull()
    })
  })
}
