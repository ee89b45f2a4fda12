import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
let settingsSignals = 0
beforeAll(async () => {
  s = await startServer()
  s.ctx.events.on('settings.changed', 'after-commit', 'test', () => { settingsSignals++ })
})
afterAll(() => s.destroy())

const SECRET_KEYS = ['postback_secret', 'ecom_a_webhook_key', 'pay_a_ecom_webhook_secret', 'ecom_a_webhook_secret', 'ecom_b_webhook_secret']

describe('GET /admin/api/settings', () => {
  test('returns every key with defaults; unset secrets read null', async () => {
    const res = await s.api('GET', '/admin/api/settings')
    expect(res.status).toBe(200)
    for (const k of [...SECRET_KEYS, 'cors_allowlist']) expect(Object.keys(res.body)).toContain(k)
    for (const k of SECRET_KEYS) expect(res.body[k]).toBeNull()
    expect(res.body.cors_allowlist).toEqual([])
  })
})

describe('PUT /admin/api/settings', () => {
  test('writes a partial object, answers the masked view, and keeps secrets encrypted at rest', async () => {
    const before = settingsSignals
    const res = await s.api('PUT', '/admin/api/settings', { postback_secret: 'pb-secret-value-1', cors_allowlist: ['https://shop.example', 'http://localhost:8080/'] })
    expect(res.status).toBe(200)
    expect(res.body.postback_secret).toBe('********')
    expect(res.body.ecom_b_webhook_secret).toBeNull()
    expect(res.body.cors_allowlist).toEqual(['https://shop.example', 'http://localhost:8080'])
    expect(res.text).not.toContain('pb-secret-value-1')
    expect(settingsSignals).toBe(before + 1)
    expect(s.ctx.settings.get('postback_secret')).toBe('pb-secret-value-1')

    const row = (await testDb(s).get<{ value: string; encrypted: number }>("SELECT value, encrypted FROM settings WHERE key = 'postback_secret'"))!
    expect(row.encrypted).toBe(1)
    expect(row.value).not.toContain('pb-secret-value-1')
    expect((await s.api('GET', '/admin/api/settings')).body).toEqual(res.body)
  })

  test('writing the mask back leaves a secret unchanged; null clears it', async () => {
    const view = (await s.api('GET', '/admin/api/settings')).body
    const same = await s.api('PUT', '/admin/api/settings', view)
    expect(same.status).toBe(200)
    expect(s.ctx.settings.get('postback_secret')).toBe('pb-secret-value-1')
    const cleared = await s.api('PUT', '/admin/api/settings', { postback_secret: null })
    expect(cleared.body.postback_secret).toBeNull()
    expect(s.ctx.settings.get('postback_secret')).toBeNull()
  })

  test('rejects unknown keys and invalid values with 400 naming the key, writing nothing', async () => {
    const before = (await s.api('GET', '/admin/api/settings')).body
    const signals = settingsSignals
    const cases: Array<[unknown, string]> = [
      [{ no_such_key: 1 }, 'no_such_key:'],
      [{ cors_allowlist: 'https://a.example' }, 'cors_allowlist:'],
      [{ cors_allowlist: ['https://a.example/path'] }, 'cors_allowlist:'],
      [{ postback_secret: 42 }, 'postback_secret:'],
      [{ postback_secret: 'x'.repeat(5000) }, 'postback_secret:'],
      // Valid first key, invalid second: all or nothing.
      [{ ecom_a_webhook_secret: 'valid-one-0123456789', postback_dedup: 'yes' }, 'postback_dedup:'],
    ]
    for (const [body, prefix] of cases) {
      const res = await s.api('PUT', '/admin/api/settings', body)
      expect({ body, status: res.status, names: res.body?.error?.startsWith(prefix) }).toEqual({ body, status: 400, names: true })
    }
    for (const body of ['[1]', '"x"', 'null', '{"a":', '']) {
      const res = await s.api('PUT', '/admin/api/settings', body)
      expect({ body, status: res.status }).toEqual({ body, status: 400 })
    }
    expect((await s.api('GET', '/admin/api/settings')).body).toEqual(before)
    expect(settingsSignals).toBe(signals)
  })

  test('an empty object changes nothing', async () => {
    const before = (await s.api('GET', '/admin/api/settings')).body
    const res = await s.api('PUT', '/admin/api/settings', {})
    expect(res.status).toBe(200)
    expect(res.body).toEqual(before)
  })
})

describe('webhook secrets (issue 25)', () => {
  test('shorter than 16 characters, or only whitespace: 400 naming the key, nothing written', async () => {
    const before = (await s.api('GET', '/admin/api/settings')).body
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ecom_a_webhook_secret: ' ' }, 'ecom_a_webhook_secret: must not be only whitespace'],
      [{ ecom_a_webhook_secret: ' '.repeat(20) }, 'ecom_a_webhook_secret: must not be only whitespace'],
      [{ ecom_a_webhook_key: 'k' }, 'ecom_a_webhook_key: must be at least 16 characters (a short secret can be guessed)'],
      [{ pay_a_ecom_webhook_secret: 'short' }, 'pay_a_ecom_webhook_secret: must be at least 16 characters (a short secret can be guessed)'],
      [{ ecom_b_webhook_secret: '0123456789abcde' }, 'ecom_b_webhook_secret: must be at least 16 characters (a short secret can be guessed)'],
    ]
    for (const [body, error] of cases) {
      const res = await s.api('PUT', '/admin/api/settings', body)
      expect({ body, status: res.status, error: res.body.error }).toEqual({ body, status: 400, error })
    }
    expect((await s.api('GET', '/admin/api/settings')).body).toEqual(before)
    expect((await s.api('PUT', '/admin/api/settings', { ecom_b_webhook_secret: '0123456789abcdef' })).status).toBe(200)
    expect((await s.api('PUT', '/admin/api/settings', { ecom_b_webhook_secret: null })).status).toBe(200)
  })

  test('short ones stored before the rule are warned about in GET /admin/api/settings (and at start), until replaced', async () => {
    // As an instance upgraded from before the rule has them (written without the check).
    await s.ctx.settings.setJson('ecom_a_webhook_key', 'k')
    await s.ctx.settings.setJson('pay_a_ecom_webhook_secret', 'short')
    try {
      const warnings = (await s.api('GET', '/admin/api/settings')).body.warnings as string[]
      expect(warnings.filter((w) => !w.startsWith('postback_secret'))).toEqual([
        'ecom_a_webhook_key is shorter than 16 characters (or only whitespace): anyone can guess it. Set a new one (16 characters or more) here and at the sender.',
        'pay_a_ecom_webhook_secret is shorter than 16 characters (or only whitespace): anyone can guess it. Set a new one (16 characters or more) here and at the sender.',
      ])
      expect((await s.api('PUT', '/admin/api/settings', { ecom_a_webhook_secret: 'hmac-secret-0123456789' })).status).toBe(200)
      const withHmac = (await s.api('GET', '/admin/api/settings')).body.warnings as string[]
      expect(withHmac).toContain('ecom_a_webhook_key (the legacy ?key=) is refused while ecom_a_webhook_secret is set: clear it (null).')
      expect((await s.api('PUT', '/admin/api/settings', { ecom_a_webhook_key: null, pay_a_ecom_webhook_secret: 'long-enough-secret-0001', ecom_a_webhook_secret: null })).status).toBe(200)
      expect(((await s.api('GET', '/admin/api/settings')).body.warnings as string[]).filter((w) => !w.startsWith('postback_secret'))).toEqual([])
    } finally {
      await s.ctx.settings.setJson('ecom_a_webhook_key', null)
      await s.ctx.settings.setJson('pay_a_ecom_webhook_secret', null)
    }
  })
})
