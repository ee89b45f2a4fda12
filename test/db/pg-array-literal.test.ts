// db/pg/array-literal.ts on a real Postgres: the literal svc builds for an array parameter reads back, through
// each element type the hot paths cast to, exactly as the values it was built from (the quoting and escaping
// rules of the array input syntax), and what it cannot write is left to the driver. Postgres only; the
// literal's own text is checked on both engines' runs.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { arrayLiteral, withArrayLiterals } from '../../src/db/pg/array-literal'
import { openPg, type PgDatabase } from '../../src/db/pg/client'
import { freshPgUrl, pgAvailable } from '../helpers/pg'

const skip = process.env.SVC_TEST_ENGINE !== 'postgres' || !pgAvailable().ok
let db: PgDatabase

beforeAll(async () => {
  if (skip) return
  db = await openPg(await freshPgUrl())
}, 60_000)
afterAll(async () => { await db?.close() })

describe('array literal text', () => {
  test('strings are always quoted, with `\\` and `"` escaped; null and undefined are NULL; flags are 1/0', () => {
    expect(arrayLiteral(['a', '', 'NULL', 'x"y', 'b\\c', null, undefined])).toBe('{"a","","NULL","x\\"y","b\\\\c",NULL,NULL}')
    expect(arrayLiteral([1, -2.5, 10n, true, false])).toBe('{1,-2.5,10,1,0}')
    expect(arrayLiteral([])).toBe('{}')
    expect(arrayLiteral([{ a: 1 }], (o) => o.a)).toBe('{1}')
  })

  test('an element the literal cannot carry leaves the whole array to the driver', () => {
    expect(arrayLiteral([1, new Date(0)])).toBeNull()
    const nested = [[1, 2]]
    expect(withArrayLiterals(['s', 3, [1, 2], nested])).toEqual(['s', 3, '{1,2}', nested])
  })
})

describe.skipIf(skip)('array literals read back by Postgres', () => {
  const roundTrip = async (type: string, values: unknown[]) => {
    const [row] = (await db.sql.unsafe(`SELECT $1::${type}[] AS a`, withArrayLiterals([values]) as never[])) as Array<{ a: unknown }>
    // Bun returns an int4 array without NULLs as an Int32Array: compared as a plain array.
    return ArrayBuffer.isView(row!.a) ? Array.from(row!.a as Int32Array) : row!.a
  }

  test('text elements: quotes, backslashes, separators, braces, spaces, unicode, empty and the word NULL', async () => {
    const values = ['plain', 'with "quotes"', 'back\\slash', 'a,b', '{braces}', '  padded  ', 'ünïcødé 日本', '', 'NULL', null, "it's"]
    expect(await roundTrip('text', values)).toEqual(values)
  })

  test('int4, int8 and float8 elements, NULLs among them', async () => {
    expect(await roundTrip('int4', [1, -7, null, 2147483647])).toEqual([1, -7, null, 2147483647])
    // Bun returns int8 array elements as strings or bigints depending on size: compare as text.
    const big = await db.sql.unsafe('SELECT $1::int8[]::text AS a', withArrayLiterals([[1_700_000_000_000, null, 9007199254740991n]]) as never[])
    expect((big as Array<{ a: string }>)[0]!.a).toBe('{1700000000000,NULL,9007199254740991}')
    expect(await roundTrip('float8', [0.1, -2.5, 1e-7, 12345.678, null])).toEqual([0.1, -2.5, 1e-7, 12345.678, null])
  })

  test('flags into int4 and boolean elements', async () => {
    expect(await roundTrip('int4', [true, false])).toEqual([1, 0])
    expect(await roundTrip('bool', [true, false, null])).toEqual([true, false, null])
  })
})
