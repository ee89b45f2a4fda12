import { describe, expect, test } from 'bun:test'
import { parseJsonExact } from '../../src/lib/json'

describe('parseJsonExact', () => {
  test('integers past 2^53 keep their digits as strings, at any depth and sign; everything else is JSON.parse', () => {
    const text = '{"id":9007199254740993,"neg":-18446744073709551615,"safe":9007199254740991,"items":[{"id":12345678901234567890}],' +
      '"float":12345678901234567.5,"exp":1e20,"digits":"12345678901234567890","total":"598.94","n":null}'
    expect(parseJsonExact(text)).toEqual({
      id: '9007199254740993', neg: '-18446744073709551615', safe: 9007199254740991, items: [{ id: '12345678901234567890' }],
      float: 12345678901234567.5, exp: 1e20, digits: '12345678901234567890', total: '598.94', n: null,
    })
  })

  test('without a long run of digits it is plain JSON.parse; invalid JSON still throws', () => {
    expect(parseJsonExact('{"id":450789469,"a":[1,2.5]}')).toEqual({ id: 450789469, a: [1, 2.5] })
    expect(() => parseJsonExact('{"id":')).toThrow()
    expect(() => parseJsonExact('{"id":90071992547409930000,')).toThrow()
  })
})
