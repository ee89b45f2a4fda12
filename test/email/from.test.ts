// The From of outgoing mail (issue 26), through a real SMTP relay on either engine: with only SVC_SMTP_URL and
// SVC_PUBLIC_URL set, broadcasts and magic links come from noreply@<host of SVC_PUBLIC_URL>; SVC_EMAIL_FROM wins
// over that and the email_from setting over both. With no From at all, GET /admin/api/settings warns and the
// messages wait in the outbox as unsent (as without a relay), then go out once email_from is written or the
// server restarts with SVC_EMAIL_FROM: nothing is lost, nothing retries for hours.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, loadConfig } from '../../src/config'
import { startServer, type TestServer } from '../helpers/server'
import { header, startRelay } from '../helpers/smtp-relay'
import { eventually } from '../postback/seed'

const JOBS_FAST = { SVC_JOBS_POLL_MS: '50', SVC_JOBS_BACKOFF_MS: '100', SVC_JOBS_BACKOFF_MAX_MS: '200', SVC_JOBS_MAX_ATTEMPTS: '4' }
const NO_FROM_PREFIX = 'No From address for outgoing mail'

let relay: Awaited<ReturnType<typeof startRelay>>
beforeAll(async () => {
  relay = await startRelay()
})
afterAll(() => relay?.close())

/** The newest message the relay got for `to` once it has `count` of them. */
const mailTo = (to: string, count = 1) =>
  eventually(() => { const all = relay.received.filter((m) => m.to[0] === to); return all.length >= count ? all[count - 1] : undefined }, 10_000, `mail ${count} to ${to}`)

async function broadcast(s: TestServer, to: string, subject: string) {
  const list = (await s.api('POST', '/admin/api/email-lists', { name: `List for ${subject}` })).body.id
  expect((await s.api('POST', `/admin/api/email-lists/${list}/subscribers`, { email: to })).status).toBe(201)
  const res = await s.api('POST', `/admin/api/email-lists/${list}/broadcasts`, { subject, text: 'Hello' })
  expect(res.status).toBe(202)
  return { list, body: res.body }
}

const warningsOf = async (s: TestServer) => (await s.api('GET', '/admin/api/settings')).body.warnings as string[]
const fromWarnings = async (s: TestServer) => (await warningsOf(s)).filter((w) => w.startsWith(NO_FROM_PREFIX))

describe('a From without the email_from setting', () => {
  test('only SVC_SMTP_URL and SVC_PUBLIC_URL: broadcasts and magic links come from noreply@<host>; no warning', async () => {
    const s = await startServer({ ...JOBS_FAST, SVC_SMTP_URL: relay.url, SVC_PUBLIC_URL: 'https://Track.Example.com/' })
    try {
      expect((await s.api('GET', '/admin/api/settings')).body.email_from).toBeNull()
      expect(await fromWarnings(s)).toEqual([])
      const { body } = await broadcast(s, 'first@example.com', 'Derived')
      expect(body).toMatchObject({ messages: 1, status: 'queued' })
      const mail = await mailTo('first@example.com')
      expect(mail.from).toBe('noreply@track.example.com')
      expect(header(mail.raw, 'From')).toBe('noreply@track.example.com')
      expect(header(mail.raw, 'Message-ID')).toMatch(/^<\d+\.[0-9a-f-]{36}@track\.example\.com>$/)

      // A magic link (the address is a subscriber, so known) comes from the same address.
      const ask = await fetch(`${s.base}/api/account/magic-link`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'first@example.com' }) })
      expect(ask.status).toBe(200)
      const link = await mailTo('first@example.com', 2)
      expect(header(link.raw, 'Subject')).toBe('Your sign-in link')
      expect(header(link.raw, 'From')).toBe('noreply@track.example.com')
    } finally {
      await s.destroy()
    }
  })

  test('SVC_EMAIL_FROM wins over SVC_PUBLIC_URL; the email_from setting wins over both, and clearing it falls back', async () => {
    const s = await startServer({ ...JOBS_FAST, SVC_SMTP_URL: relay.url, SVC_PUBLIC_URL: 'https://track.example.com', SVC_EMAIL_FROM: ' Shop News <News@Shop.Example> ' })
    try {
      await broadcast(s, 'env@example.com', 'From the variable')
      expect(header((await mailTo('env@example.com')).raw, 'From')).toBe('Shop News <news@shop.example>')

      expect((await s.api('PUT', '/admin/api/settings', { email_from: 'Desk <desk@shop.example>' })).status).toBe(200)
      await broadcast(s, 'setting@example.com', 'From the setting')
      const bySetting = await mailTo('setting@example.com')
      expect(bySetting.from).toBe('desk@shop.example')
      expect(header(bySetting.raw, 'From')).toBe('Desk <desk@shop.example>')

      expect((await s.api('PUT', '/admin/api/settings', { email_from: null })).status).toBe(200)
      await broadcast(s, 'cleared@example.com', 'Setting cleared')
      expect(header((await mailTo('cleared@example.com')).raw, 'From')).toBe('Shop News <news@shop.example>')
    } finally {
      await s.destroy()
    }
  })
})

describe('no From at all', () => {
  test('a public URL on an IP address gives none: warned in settings; mail waits unsent, and goes out once email_from is written', async () => {
    const s = await startServer({ ...JOBS_FAST, SVC_SMTP_URL: relay.url, SVC_PUBLIC_URL: 'http://127.0.0.1:8080' })
    try {
      expect(await fromWarnings(s)).toEqual([
        'No From address for outgoing mail: the email_from setting and SVC_EMAIL_FROM are unset, and the host of SVC_PUBLIC_URL (127.0.0.1) ' +
          'is no mail domain to send from as noreply@. Messages wait in the outbox as unsent until the email_from setting is written ' +
          '(or SVC_EMAIL_FROM is set and svc restarted).',
      ])
      const { list, body } = await broadcast(s, 'waiting@example.com', 'Waits')
      expect(body).toEqual({ list_id: list, messages: 1, status: 'unsent' })
      const ask = await fetch(`${s.base}/api/account/magic-link`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'waiting@example.com' }) })
      expect(ask.status).toBe(200)
      // The sign-in link is written by a job: once it ran, its message waits in the outbox too.
      const rows = await eventually(async () => {
        const items = (await s.api('GET', '/admin/api/outbox?email=waiting@example.com')).body.items as Array<{ subject: string; status: string; job: unknown }>
        return items.length === 2 ? items : undefined
      }, 10_000, 'the sign-in link in the outbox')
      expect(rows.map((r) => [r.subject, r.status, r.job])).toEqual([['Your sign-in link', 'unsent', null], ['Waits', 'unsent', null]])
      await Bun.sleep(300)
      expect(relay.received.filter((m) => m.to[0] === 'waiting@example.com')).toEqual([])

      // Writing email_from sends what waited, without a restart; the warning is gone.
      expect((await s.api('PUT', '/admin/api/settings', { email_from: 'news@shop.example' })).status).toBe(200)
      expect(await fromWarnings(s)).toEqual([])
      const sent = await eventually(async () => {
        const items = (await s.api('GET', '/admin/api/outbox?email=waiting@example.com')).body.items as Array<{ status: string }>
        return items.every((r) => r.status === 'sent') ? items : undefined
      }, 10_000, 'the waiting messages sent')
      expect(sent.length).toBe(2)
      await mailTo('waiting@example.com', 2)
      expect(relay.received.filter((m) => m.to[0] === 'waiting@example.com').map((m) => [header(m.raw, 'Subject'), header(m.raw, 'From')]).sort())
        .toEqual([['Waits', 'news@shop.example'], ['Your sign-in link', 'news@shop.example']])
    } finally {
      await s.destroy()
    }
  })

  test('no setting, no SVC_EMAIL_FROM, no SVC_PUBLIC_URL: warned; the messages survive a restart with SVC_EMAIL_FROM and go out', async () => {
    const first = await startServer({ ...JOBS_FAST, SVC_SMTP_URL: relay.url })
    let second: TestServer | null = null
    try {
      expect(await fromWarnings(first)).toEqual([
        'No From address for outgoing mail: the email_from setting, SVC_EMAIL_FROM and SVC_PUBLIC_URL are all unset. ' +
          'Messages wait in the outbox as unsent until the email_from setting is written (or SVC_EMAIL_FROM is set and svc restarted).',
      ])
      const { list, body } = await broadcast(first, 'later@example.com', 'After the restart')
      expect(body).toEqual({ list_id: list, messages: 1, status: 'unsent' })
      await first.stop()

      second = await startServer({ ...JOBS_FAST, SVC_SMTP_URL: relay.url, SVC_EMAIL_FROM: 'ops@shop.example' }, first.dataDir)
      expect(await fromWarnings(second)).toEqual([])
      const mail = await mailTo('later@example.com')
      expect(header(mail.raw, 'From')).toBe('ops@shop.example')
      const srv = second
      await eventually(async () => ((await srv.api('GET', `/admin/api/outbox?list_id=${list}`)).body.items as Array<{ status: string }>)
        .map((r) => r.status).join() === 'sent' || undefined, 10_000, 'the message marked sent')
    } finally {
      if (second) {
        await second.destroy()
      } else {
        await first.destroy()
      }
      rmSync(first.dataDir, { recursive: true, force: true })
    }
  })
})

describe('SVC_EMAIL_FROM and the derived address in the configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-from-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const load = (env: Record<string, string>) => loadConfig({ SVC_DATA_DIR: dir, ...env }).emailFrom

  test('validated like the email_from setting: an address or "Name <address>", normalised', () => {
    expect(load({ SVC_EMAIL_FROM: 'Ops@Shop.Example' })).toEqual({ mailbox: 'ops@shop.example', source: 'SVC_EMAIL_FROM' })
    expect(load({ SVC_EMAIL_FROM: 'Shop  News <news@shop.example>', SVC_PUBLIC_URL: 'https://t.example.com' }))
      .toEqual({ mailbox: 'Shop  News <news@shop.example>', source: 'SVC_EMAIL_FROM' })
    for (const bad of ['not an address', 'Shop\r\nBcc: x <a@b.example>', '"Quoted" <a@b.example>', 'a@localhost']) {
      const attempt = () => load({ SVC_EMAIL_FROM: bad })
      expect(attempt).toThrow(ConfigError)
      expect(attempt).toThrow(`SVC_EMAIL_FROM must be an email address, optionally "Name <address>", got "${bad}"`)
    }
  })

  test('else noreply@<host of SVC_PUBLIC_URL> when that host is a mail domain; else none', () => {
    expect(load({ SVC_PUBLIC_URL: 'https://track.example.com:8443/base/' })).toEqual({ mailbox: 'noreply@track.example.com', source: 'SVC_PUBLIC_URL' })
    for (const url of ['http://127.0.0.1:3000', 'http://localhost:3000', 'http://[::1]:3000', 'not a url']) expect(load({ SVC_PUBLIC_URL: url })).toBeNull()
    expect(load({})).toBeNull()
    expect(load({ SVC_EMAIL_FROM: '   ' })).toBeNull()
  })
})
