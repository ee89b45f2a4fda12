import { describe, expect, test } from 'bun:test'
import { compileUrlTemplate, render, MACROS } from '../../src/tracking/template'
import { clickCookie, crop, normalizeClickId, parseVisitQuery } from '../../src/tracking/visitor'

const values = (o: Partial<Record<(typeof MACROS)[number], string | number | null>>) => MACROS.map((m) => o[m] ?? null)

describe('target URL templates', () => {
  test('every known macro is substituted with its URL-encoded value', () => {
    const t = compileUrlTemplate('https://x.example/p?c={click_id}&a={campaign_id}&s={source_id}&o={offer_id}&l={landing_id}&e={external_id}&s1={sub1}&s10={sub10}')!
    expect(render(t, values({ click_id: 'id', campaign_id: 1, source_id: 2, offer_id: 3, landing_id: 4, external_id: 'a b&c', sub1: 'é/?', sub10: 'z' })))
      .toBe('https://x.example/p?c=id&a=1&s=2&o=3&l=4&e=a%20b%26c&s1=%C3%A9%2F%3F&s10=z')
  })

  test('missing values render empty and unknown {names} stay as they are', () => {
    const t = compileUrlTemplate('https://x.example/?a={sub2}&b={payout}&c={Click_ID}')!
    expect(render(t, values({}))).toBe('https://x.example/?a=&b={payout}&c={Click_ID}')
  })

  test('spaces and non-ASCII in the operator URL are percent-encoded so the Location header stays valid', () => {
    const t = compileUrlTemplate('https://x.example/offre spéciale?q={sub1}')!
    expect(render(t, values({ sub1: 'v' }))).toBe('https://x.example/offre%20sp%C3%A9ciale?q=v')
  })

  test.each([
    ['relative', '/offer'],
    ['javascript scheme', 'javascript:alert(1)'],
    ['ftp scheme', 'ftp://x.example/'],
    ['no host', 'https://'],
    ['macro as the whole URL', '{sub1}'],
    ['empty', ''],
    ['lone surrogate', 'https://x.example/\ud800'],
  ])('an unusable target (%s) compiles to null', (_name, url) => {
    expect(compileUrlTemplate(url)).toBeNull()
  })

  test.each([
    ['host', 'https://{sub1}/'],
    ['subdomain', 'https://{click_id}.x.example/'],
    ['port', 'https://x.example:{sub1}/'],
    ['user info', 'https://{sub1}@x.example/'],
    ['domain suffix', 'https://x.{sub2}'],
    ['scheme', '{sub1}://x.example/'],
  ])('a macro in the scheme or host (%s) makes the target unusable: an open redirect otherwise', (_name, url) => {
    expect(compileUrlTemplate(url)).toBeNull()
  })

  test('macros in the path, query and fragment still compile; a backslash ends the host', () => {
    expect(compileUrlTemplate('https://x.example/{sub1}?a={sub2}#{sub3}')).not.toBeNull()
    expect(render(compileUrlTemplate('https://x.example\\{sub1}')!, values({ sub1: 'p' }))).toBe('https://x.example\\p')
  })
})

describe('visitor query parsing', () => {
  test('the first occurrence of a repeated parameter wins', () => {
    const q = parseVisitQuery('http://h/c/x?sub1=a&sub1=b&utm_source=x&utm_source=y&click_id=1&click_id=2')
    expect(q.subs[0]).toBe('a')
    expect(q.params).toEqual({ utm_source: 'x' })
    expect(q.clickId).toBe('1')
  })

  test('plus is a space, malformed escapes are kept verbatim, empty keys are dropped', () => {
    const q = parseVisitQuery('http://h/c/x?sub2=a+b&bad=%E0%A4%A&=v&flag&utm=%F0%9F%98%80')
    expect(q.subs[1]).toBe('a b')
    expect(q.params).toEqual({ bad: '%E0%A4%A', flag: '', utm: '😀' })
  })

  test('params keep at most 50 keys and crop keys and values to 256 characters', () => {
    const many = Array.from({ length: 80 }, (_, i) => `k${i}=${'v'.repeat(300)}`).join('&')
    const q = parseVisitQuery(`http://h/c/x?${'K'.repeat(300)}=1&${many}`)
    const keys = Object.keys(q.params!)
    expect(keys.length).toBe(50)
    expect(keys[0]).toBe('K'.repeat(256))
    expect(q.params!.k0).toBe('v'.repeat(256))
    expect(q.params!.k49).toBeUndefined()
  })

  test('sub1..sub10 are cropped to 256 and kept out of params; __proto__ is an ordinary key', () => {
    const q = parseVisitQuery(`http://h/c/x?sub10=${'s'.repeat(400)}&__proto__=p&sub11=z`)
    expect(q.subs[9]).toBe('s'.repeat(256))
    expect(q.params!['__proto__']).toBe('p')
    expect(q.params!.sub11).toBe('z')
  })

  test('crop never leaves half a surrogate pair', () => {
    expect(crop('a😀', 2)).toBe('a')
    expect(crop('abc', 2)).toBe('ab')
  })

  test('click ids are UUIDs, compared lower-case', () => {
    expect(normalizeClickId('0B1C2D3E-4F50-4617-8899-AABBCCDDEEFF')).toBe('0b1c2d3e-4f50-4617-8899-aabbccddeeff')
    for (const bad of ['', 'x', '0b1c2d3e4f50461788 99aabbccddeeff', '0b1c2d3e-4f50-4617-8899-aabbccddeefg', null]) {
      expect(normalizeClickId(bad)).toBeNull()
    }
  })

  test('the _svc_click cookie is found among others, not inside another name', () => {
    expect(clickCookie('a=1; _svc_click=abc; b=2')).toBe('abc')
    expect(clickCookie('_svc_click=abc')).toBe('abc')
    expect(clickCookie('x_svc_click=zzz; _svc_click=abc')).toBe('abc')
    expect(clickCookie('x_svc_click=zzz')).toBeNull()
    expect(clickCookie(null)).toBeNull()
  })
})
