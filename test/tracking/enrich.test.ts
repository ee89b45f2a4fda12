// The small parsers of click enrichment (src/tracking/enrich.ts); the click path itself is
// enrichment.test.ts.
import { describe, expect, test } from 'bun:test'
import { languageMemoSize, languageOf, proxyCountry } from '../../src/tracking/enrich'

describe('languageOf (Accept-Language)', () => {
  test('the primary tag of the entry with the highest q, lower case; the first of equals', () => {
    const cases: Array<[string, string | null]> = [
      ['de-CH,de;q=0.9,en;q=0.8', 'de'],
      ['en-US', 'en'],
      ['EN', 'en'],
      ['fr;q=0.5, en-GB;q=0.7', 'en'],
      ['fr;q=0.5,en;q=0.5', 'fr'],
      ['  es-419 ;  Q = 0.9 , pt', 'pt'],
      ['fil-PH,en;q=0.1', 'fil'],
      ['zh-Hant-TW', 'zh'],
      ['sr_Latn_RS', 'sr'],
      ['*;q=1, it;q=0.2', 'it'],
      ['de;q=1.000, en', 'de'],
    ]
    for (const [header, lang] of cases) expect({ header, lang: languageOf(header) }).toEqual({ header, lang })
  })

  test('null when no entry names a language: absent, wildcard, q=0, bad weights, garbage', () => {
    const cases = [null, '', '*', 'en;q=0', 'en;q=0.000', 'en;q=2', 'en;q=abc', 'x-klingon', 'i-klingon', 'e', 'english', 'en1', '1234', ';;;,,,', 'é-FR']
    for (const header of cases) expect({ header, lang: languageOf(header) }).toEqual({ header, lang: null })
  })

  test('reads only the first 200 characters: a later entry does not count, however preferred', () => {
    const filler = Array.from({ length: 40 }, () => 'zz;q=0.1').join(',') // 359 characters
    expect(languageOf(`ab;q=0.2,${filler},fr;q=1`)).toBe('ab')
    expect(languageOf(`${'x'.repeat(5000)},fr`)).toBeNull()
  })

  test('remembers at most 2000 headers; a long header is read but not remembered', () => {
    for (let i = 0; i < 2100; i++) languageOf(`en;q=0.${i % 10},de;x=${i}`)
    expect(languageMemoSize()).toBe(2000)
    const long = `fr,${'de;q=0.1,'.repeat(40)}`
    const before = languageMemoSize()
    expect(languageOf(long)).toBe('fr')
    expect(languageMemoSize()).toBe(before)
  })
})

describe('proxyCountry (CF-IPCountry)', () => {
  test('two letters, upper-cased; the same string every time', () => {
    expect(proxyCountry('DE')).toBe('DE')
    expect(proxyCountry('us')).toBe('US')
    expect(proxyCountry('gB')).toBe('GB')
    expect(proxyCountry('ZZ')).toBe('ZZ')
  })

  test('null for XX (unknown), T1 (Tor), and anything that is not two ASCII letters', () => {
    for (const h of [null, '', 'XX', 'xx', 'T1', 'A', 'USA', 'D ', ' D', '1A', 'Ä1', 'é']) {
      expect({ h, c: proxyCountry(h) }).toEqual({ h, c: null })
    }
  })
})
