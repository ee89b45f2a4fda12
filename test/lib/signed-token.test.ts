// Pins the wire format of every signed token svc hands out. The literal tokens below were produced by the code
// before lib/signed-token.ts existed (issue 27); they sit in browsers, sent mail and cached pages, so they must
// keep verifying, and the same inputs must keep producing the same strings.
import { describe, expect, test } from 'bun:test'
import { SessionSigner } from '../../src/auth'
import { Confirmations } from '../../src/agent/mcp/confirm'
import { UnsubscribeLinks } from '../../src/email/unsubscribe'
import { FormTokens } from '../../src/landings/form-token'
import { SignedTokens } from '../../src/lib/signed-token'

const KEY = 'pinned-master-secret-0123456789abcdef'
const NOW = 1_700_000_000_000
const CLICK = '0b7e4c1a-5d2f-4a8e-9c3b-1f2e3d4c5b6a'

const ADMIN = 'v1.42.7.1700604800.M_rzsEnN0ikbz5Gpmi2RawAJ5uWehRw8GC9b60KqaE0'
const CUSTOMER = 'v1.42.7.1702592000.1KDVUmOOPFwGeSNtmkNuBC0Q9lL7LE-yzYmSZxSW7Fg'
const CONFIRM = '1700000300000.yfT0wIeXlFOJuE3A2Xy31QlbgreC478p3394HGG3gMY'
const CONFIRM_ARGS = { id: 9, force: true, nested: { b: 1, a: [1, 'x'] } }
const UNSUBSCRIBE = 'v1.123456.3.XWcuBMw7B9smKTUZJrnzKQ'
const PAGE_WITH_CLICK = `v2.1700000000000.17.${CLICK}.RFPpHRQpkDkylogZepvbLQ`
const PAGE = 'v2.1700000000000.17..5etIVaJMCeIG1m93k7g2tQ'
const LEAD_FORM_V1 = 'v1.1700000000000.17._eEMtgGCq2Tmx7RwKfE65w'

/** The same token with one character of its MAC changed. */
const tampered = (t: string) => t.slice(0, -2) + (t.at(-2) === 'A' ? 'B' : 'A') + t.at(-1)

describe('session cookies: v1.<user>.<epoch>.<expires, s>.<43-character MAC>', () => {
  const admin = new SessionSigner(KEY, 604800)
  const customer = new SessionSigner(KEY, 2592000, 'customer-session-cookie')

  test('the same inputs give the pinned cookies, and the pinned cookies verify until they expire', () => {
    expect(admin.sign(42, 7, NOW)).toEqual({ value: ADMIN, expiresAt: 1700604800 })
    expect(customer.sign(42, 7, NOW)).toEqual({ value: CUSTOMER, expiresAt: 1702592000 })
    expect(admin.verify(ADMIN, NOW)).toEqual({ userId: 42, epoch: 7, expiresAt: 1700604800 })
    expect(customer.verify(CUSTOMER, NOW)).toEqual({ userId: 42, epoch: 7, expiresAt: 1702592000 })
    expect(admin.verify(ADMIN, 1700604800_000 - 1)).not.toBeNull()
    expect(admin.verify(ADMIN, 1700604800_000)).toBeNull()
  })

  test('an admin cookie is no customer cookie, and a changed one verifies as nothing', () => {
    expect(customer.verify(ADMIN, NOW)).toBeNull()
    expect(admin.verify(CUSTOMER, NOW)).toBeNull()
    expect(admin.verify(tampered(ADMIN), NOW)).toBeNull()
    expect(admin.verify(ADMIN.replace('v1.42.', 'v1.43.'), NOW)).toBeNull()
    expect(new SessionSigner('another-master-secret-0123456789', 604800).verify(ADMIN, NOW)).toBeNull()
    expect(admin.verify('', NOW)).toBeNull()
    expect(admin.verify(ADMIN + 'x'.repeat(300), NOW)).toBeNull()
  })
})

describe('agent confirmations: <expires, ms>.<43-character MAC over token, tool and canonical arguments>', () => {
  const confirmations = new Confirmations(KEY)

  test('the same call gives the pinned token, which confirms exactly that call', () => {
    expect(confirmations.issue(5, 'offers_delete', CONFIRM_ARGS, NOW)).toEqual({ token: CONFIRM, expiresAt: 1700000300000 })
    // Key order does not matter: the MAC covers canonical JSON.
    expect(confirmations.check(CONFIRM, 5, 'offers_delete', { nested: { a: [1, 'x'], b: 1 }, force: true, id: 9 }, NOW)).toEqual({ valid: true, expired: false })
    expect(confirmations.check(CONFIRM, 5, 'offers_delete', CONFIRM_ARGS, 1700000300000)).toEqual({ valid: true, expired: true })
  })

  test('another agent token, tool or argument, or a changed token, is not confirmed', () => {
    expect(confirmations.check(CONFIRM, 6, 'offers_delete', CONFIRM_ARGS, NOW).valid).toBe(false)
    expect(confirmations.check(CONFIRM, 5, 'offers_archive', CONFIRM_ARGS, NOW).valid).toBe(false)
    expect(confirmations.check(CONFIRM, 5, 'offers_delete', { ...CONFIRM_ARGS, id: 10 }, NOW).valid).toBe(false)
    expect(confirmations.check(tampered(CONFIRM), 5, 'offers_delete', CONFIRM_ARGS, NOW).valid).toBe(false)
    expect(confirmations.check(CONFIRM.replace('17000003', '17000004'), 5, 'offers_delete', CONFIRM_ARGS, NOW).valid).toBe(false)
  })
})

describe('unsubscribe links: v1.<subscriber>.<list>.<22-character MAC>, never expiring', () => {
  const links = new UnsubscribeLinks(KEY, 'https://track.example.com')

  test('the same subscriber gives the pinned link, and a link from a mail sent long ago still verifies', () => {
    expect(links.token({ subscriberId: 123456, listId: 3 })).toBe(UNSUBSCRIBE)
    expect(links.url({ subscriberId: 123456, listId: 3 })).toBe(`https://track.example.com/email/unsubscribe/${UNSUBSCRIBE}`)
    expect(links.verify(UNSUBSCRIBE)).toEqual({ subscriberId: 123456, listId: 3 })
    // The MAC has always covered the ids as numbers: a leading zero names the same subscriber.
    expect(links.verify(UNSUBSCRIBE.replace('v1.123456.', 'v1.0123456.'))).toEqual({ subscriberId: 123456, listId: 3 })
  })

  test('another subscriber, list or installation, or a changed MAC, verifies as nothing', () => {
    expect(links.verify(UNSUBSCRIBE.replace('v1.123456.', 'v1.123457.'))).toBeNull()
    expect(links.verify(UNSUBSCRIBE.replace('.3.', '.4.'))).toBeNull()
    expect(links.verify(tampered(UNSUBSCRIBE))).toBeNull()
    expect(new UnsubscribeLinks('another-master-secret-0123456789', null).verify(UNSUBSCRIBE)).toBeNull()
  })
})

describe('landing-page tokens: v2.<served, ms>.<landing>.<click or empty>.<22-character MAC>, and v1 lead-form tokens', () => {
  const tokens = new FormTokens(KEY)

  test('the same page gives the pinned tokens (a click id that is no UUID is left out)', () => {
    expect(tokens.issue(17, NOW, CLICK)).toBe(PAGE_WITH_CLICK)
    expect(tokens.issue(17, NOW)).toBe(PAGE)
    expect(tokens.issue(17, NOW, 'not-a-uuid')).toBe(PAGE)
  })

  test('pinned tokens, v1 included, still time a lead form and are refused for another landing', () => {
    for (const t of [PAGE_WITH_CLICK, PAGE, LEAD_FORM_V1]) {
      expect(tokens.check(t, 17, NOW + 1999)).toBe('too-fast')
      expect(tokens.check(t, 17, NOW + 2000)).toBe('ok')
      expect(tokens.check(t, 18, NOW + 2000)).toBe('forged')
      expect(tokens.check(tampered(t), 17, NOW + 2000)).toBe('forged')
    }
    expect(tokens.check(undefined, 17, NOW)).toBe('absent')
    // The v1 and v2 keys differ: a v1 MAC under the v2 prefix is forged.
    expect(tokens.check(LEAD_FORM_V1.replace('v1.', 'v2.').replace('.17.', '.17..'), 17, NOW + 2000)).toBe('forged')
  })

  test('only a v2 token naming the click binds events to it, within a day', () => {
    expect(tokens.bound(PAGE_WITH_CLICK, 17, CLICK, NOW + 1000)).toBe(true)
    expect(tokens.bound(PAGE_WITH_CLICK, 17, CLICK, NOW + 24 * 3600_000)).toBe(true)
    expect(tokens.bound(PAGE_WITH_CLICK, 17, CLICK, NOW + 24 * 3600_000 + 1)).toBe(false)
    expect(tokens.bound(PAGE_WITH_CLICK, 17, CLICK, NOW - 60_001)).toBe(false)
    expect(tokens.bound(PAGE_WITH_CLICK, 18, CLICK, NOW + 1000)).toBe(false)
    expect(tokens.bound(PAGE, 17, CLICK, NOW + 1000)).toBe(false)
    expect(tokens.bound(LEAD_FORM_V1, 17, CLICK, NOW + 1000)).toBe(false)
    expect(tokens.bound(tampered(PAGE_WITH_CLICK), 17, CLICK, NOW + 1000)).toBe(false)
  })
})

describe('SignedTokens', () => {
  test('one purpose, one key: the same fields under another purpose verify as nothing', () => {
    const format = { version: 'v1', fields: ['\\d{1,9}'], macBytes: 16 as const }
    const a = new SignedTokens(KEY, { ...format, purpose: 'a' })
    const b = new SignedTokens(KEY, { ...format, purpose: 'b' })
    const token = a.sign([5])
    expect(token).toMatch(/^v1\.5\.[A-Za-z0-9_-]{22}$/)
    expect(a.open(token)).toEqual({ fields: ['5'], expired: false })
    expect(b.open(token)).toBeNull()
    expect(a.open(token.replace('v1.', 'v2.'))).toBeNull()
  })
})
