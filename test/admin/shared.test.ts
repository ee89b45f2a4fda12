import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { isUniqueViolation } from '../../src/db/errors'
import { parseId } from '../../src/http/collection'
import { parsePage, toPage } from '../../src/lib/paging'
import { urlTemplate } from '../../src/lib/fields'
import { AppError } from '../../src/lib/errors'
import { HTTP_STATUS } from '../../src/http/errors'

const status = (fn: () => unknown) => {
  try { fn(); return 0 } catch (e) { return e instanceof AppError ? HTTP_STATUS[e.code] : -1 }
}

describe('parsePage', () => {
  test('defaults to 50, caps at 500, and rejects garbage with 400', () => {
    expect(parsePage({})).toEqual({ afterId: 0, limit: 50 })
    expect(parsePage({ limit: '7', cursor: '42' })).toEqual({ afterId: 42, limit: 7 })
    expect(parsePage({ limit: '100000' }).limit).toBe(500)
    for (const q of [{ limit: '0' }, { limit: '2.5' }, { limit: 'ten' }, { cursor: 'abc' }, { cursor: '-1' }]) expect(status(() => parsePage(q))).toBe(400)
  })

  test('toPage sets next_cursor to the last shown id only when another row exists', () => {
    const rows = [{ id: 3 }, { id: 5 }, { id: 9 }]
    expect(toPage(rows, { limit: 2 }, (r) => r.id)).toEqual({ items: [3, 5], next_cursor: '5' })
    expect(toPage(rows, { limit: 3 }, (r) => r.id)).toEqual({ items: [3, 5, 9], next_cursor: null })
  })
})

describe('parseId', () => {
  test('accepts positive integers and answers 404 for anything else', () => {
    expect(parseId('12', 'offer')).toBe(12)
    for (const raw of ['0', '-3', 'abc', '1.0', '', '1e2', '9999999999999999']) expect(status(() => parseId(raw, 'offer'))).toBe(404)
  })
})

describe('urlTemplate', () => {
  test('accepts absolute http(s) URLs with {macros} in path, query and fragment, refuses other schemes, relative URLs and macros in the host', () => {
    expect(urlTemplate(' https://adv.example/{sub}/p?c={click_id}&x={payout} ', 'url')).toBe('https://adv.example/{sub}/p?c={click_id}&x={payout}')
    expect(status(() => urlTemplate('https://{sub}.adv.example/p', 'url'))).toBe(400)
    expect(urlTemplate('http://10.0.0.1:8080/pb', 'url')).toBe('http://10.0.0.1:8080/pb')
    for (const bad of ['javascript:alert(1)', 'data:text/html,x', '/path', 'adv.example', '{click_id}', 5, null]) expect(status(() => urlTemplate(bad, 'url'))).toBe(400)
  })
})

// src/db/errors.ts reads SQLite's error shape only (an in-memory SQLite database, no server: it runs the same
// under SVC_TEST_ENGINE=postgres). Postgres unique violations (SQLSTATE 23505) are turned into the same
// conflicts inside the Pg stores, tested in test/users/pg-store.test.ts and test/catalog/pg-store.test.ts.
describe('isUniqueViolation', () => {
  test('recognises a real SQLite UNIQUE failure and nothing else', () => {
    const db = new Database(':memory:')
    db.run('CREATE TABLE t (s TEXT UNIQUE)')
    db.run("INSERT INTO t VALUES ('a')")
    let err: unknown
    try { db.run("INSERT INTO t VALUES ('a')") } catch (e) { err = e }
    expect(isUniqueViolation(err)).toBe(true)
    expect(isUniqueViolation(new Error('x', { cause: err }))).toBe(true)
    expect(isUniqueViolation(new Error('UNIQUE constraint failed'))).toBe(false)
    expect(isUniqueViolation(undefined)).toBe(false)
  })
})
