// Mail delivery through a real SMTP server the test starts (the smtp-server package), on either engine:
// a broadcast fills each subscriber's macros and is delivered with Message-ID, Date and From; a relay that
// answers 421 is retried until it accepts; a 550 fails for good with the relay's reply visible; without
// SVC_SMTP_URL messages wait as unsent and go out after a restart with a relay; an address unsubscribed
// meanwhile is suppressed at send time, never mailed.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { startServer, type TestServer } from '../helpers/server'
import { testDb } from '../helpers/db'
import { eventually } from '../postback/seed'
import { decoded, header, refuse, startRelay } from '../helpers/smtp-relay'

const PUBLIC = 'https://track.example'

const JOBS_FAST = { SVC_JOBS_POLL_MS: '50', SVC_JOBS_BACKOFF_MS: '100', SVC_JOBS_BACKOFF_MAX_MS: '200', SVC_JOBS_MAX_ATTEMPTS: '4' }

async function outboxOf(s: TestServer, list: number) {
  const res = await s.api('GET', `/admin/api/outbox?list_id=${list}`)
  expect(res.status).toBe(200)
  return res.body.items as Array<{ id: number; to: string; status: string; subject: string; message_id: string | null; result: string | null; job: { status: string; attempts: number; last_error: string | null } | null }>
}

describe('delivery through the relay', () => {
  let relay: Awaited<ReturnType<typeof startRelay>>
  let s: TestServer
  let softRefusals = 0

  beforeAll(async () => {
    relay = await startRelay((address) => {
      if (address === 'hard@example.com') throw refuse(550, '5.1.1 <hard@example.com>: Recipient address rejected: User unknown')
      if (address === 'soft@example.com' && softRefusals++ === 0) throw refuse(421, '4.7.0 Try again later, closing connection')
    })
    s = await startServer({ SVC_SMTP_URL: relay.url, SVC_PUBLIC_URL: PUBLIC, ...JOBS_FAST })
    expect((await s.api('PUT', '/admin/api/settings', { email_from: 'Shop News <News@Shop.example>' })).status).toBe(200)
  })
  afterAll(async () => {
    await s?.destroy()
    relay?.close()
  })

  test('a broadcast is delivered with each subscriber\'s macros; 421 is retried, 550 fails with the reply', async () => {
    const list = (await s.api('POST', '/admin/api/email-lists', { name: 'Buyers' })).body.id
    for (const body of [
      { email: 'ann@example.com', name: 'Ann', fields: { city: 'Oslo', tag: '<b>&' } },
      { email: 'soft@example.com', name: 'Sam' },
      { email: 'hard@example.com', name: 'Hal' },
    ]) expect((await s.api('POST', `/admin/api/email-lists/${list}/subscribers`, body)).status).toBe(201)

    const res = await s.api('POST', `/admin/api/email-lists/${list}/broadcasts`, {
      subject: 'Hi {name}, news from {city}', text: 'Hello {name} <{email}> in {city}. {unknown} stays.', html: '<p>Hi {name} & {city} {tag}</p>',
    })
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ list_id: list, messages: 3, status: 'queued' })

    const settled = await eventually(async () => {
      const rows = await outboxOf(s, list)
      const done = rows.every((r) => r.status === 'sent' || r.job?.status === 'failed')
      return done ? rows : undefined
    }, 15_000, 'every message sent or failed')
    const by = (to: string) => settled.find((r) => r.to === to)!
    expect(by('ann@example.com')).toMatchObject({ status: 'sent', subject: 'Hi Ann, news from Oslo', job: { status: 'done', attempts: 1 } })
    expect(by('ann@example.com').result).toStartWith('250')
    expect(by('soft@example.com')).toMatchObject({ status: 'sent', job: { status: 'done', attempts: 2 } })
    const hard = by('hard@example.com')
    expect(hard.status).toBe('queued')
    expect(hard.job).toMatchObject({ status: 'failed', attempts: 1 })
    expect(hard.job!.last_error).toStartWith('SMTP 550: ')
    expect(hard.job!.last_error).toContain('Recipient address rejected: User unknown')
    expect(hard.job!.last_error).toEndWith('(attempt 1 of 4; not retryable)')

    // What the relay got: one message each to ann and soft, none to hard.
    expect(relay.received.map((m) => m.to).sort()).toEqual([['ann@example.com'], ['soft@example.com']])
    const ann = relay.received.find((m) => m.to[0] === 'ann@example.com')!
    expect(ann.from).toBe('news@shop.example')
    expect(header(ann.raw, 'From')).toBe('Shop News <news@shop.example>')
    expect(header(ann.raw, 'To')).toBe('ann@example.com')
    expect(header(ann.raw, 'Subject')).toBe('Hi Ann, news from Oslo')
    expect(Date.parse(header(ann.raw, 'Date')!)).toBeGreaterThan(Date.now() - 60_000)
    const messageId = header(ann.raw, 'Message-ID')!
    expect(messageId).toMatch(/^<\d+\.[0-9a-f-]{36}@shop\.example>$/)
    expect(by('ann@example.com').message_id).toBe(messageId)
    expect(decoded(ann.raw)).toContain('Hello Ann <ann@example.com> in Oslo. {unknown} stays.')
    // Every message can be unsubscribed from: RFC 2369/8058 headers, and a footer link (no {unsubscribe_url} in the template).
    const link = /^<(https:\/\/track\.example\/email\/unsubscribe\/v1\.\d+\.\d+\.[A-Za-z0-9_-]{22})>, <mailto:news@shop\.example\?subject=unsubscribe%20v1\.[^>]+>$/
      .exec(header(ann.raw, 'List-Unsubscribe')!)
    expect(link).not.toBeNull()
    expect(header(ann.raw, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click')
    expect(decoded(ann.raw)).toContain(`--\r\nUnsubscribe: ${link![1]}`)
    expect(decoded(ann.raw)).toContain(`<a href="${link![1]}">Unsubscribe</a>`)
    // Values are escaped in the HTML part (the template itself is the operator's HTML), not in the text part.
    expect(decoded(ann.raw)).toContain('<p>Hi Ann & Oslo &#60;b&#62;&#38;</p>')

    // One click in the mail client (RFC 8058): a POST to the link. The next broadcast leaves her out.
    const path = new URL(link![1]!).pathname
    const form = await fetch(`${s.base}${path}`)
    expect(form.status).toBe(200)
    expect(form.headers.get('content-security-policy')).toContain("form-action 'self'")
    expect(await form.text()).toContain('<form method="post"><button type="submit">Unsubscribe</button></form>')
    for (let i = 0; i < 2; i++) { // twice: the same answer
      const done = await fetch(`${s.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' })
      expect(done.status).toBe(200)
      expect(await done.text()).toContain('You are unsubscribed')
    }
    const annRow = (await s.api('GET', `/admin/api/email-lists/${list}/subscribers?email=ann@example.com`)).body.items[0]
    expect(annRow.status).toBe('unsubscribed')
    expect((await s.api('GET', `/admin/api/email-lists/${list}`)).body.active_subscribers).toBe(2)
    const next = await s.api('POST', `/admin/api/email-lists/${list}/broadcasts`, { subject: 'Again', text: 'Second mail' })
    expect(next.body.messages).toBe(2)
    await eventually(async () => (await outboxOf(s, list)).filter((r) => r.subject === 'Again').every((r) => r.status === 'sent' || r.job?.status === 'failed') || undefined, 15_000, 'second broadcast settled')
    expect(relay.received.filter((m) => header(m.raw, 'Subject') === 'Again').map((m) => m.to[0])).toEqual(['soft@example.com'])

    // A link that was not signed here, or was changed, unsubscribes nobody.
    const forged = path.replace(/\.[A-Za-z0-9_-]{22}$/, '.AAAAAAAAAAAAAAAAAAAAAA')
    for (const bad of [forged, '/email/unsubscribe/v1.1.1.x', '/email/unsubscribe/%00']) {
      expect((await fetch(`${s.base}${bad}`, { method: 'POST', body: '{not json', headers: { 'content-type': 'application/json' } })).status).toBe(404)
      expect((await fetch(`${s.base}${bad}`)).status).toBe(404)
    }
  })

  test('a subject with a line break is refused (400); a name or field with one never got in', async () => {
    const list = (await s.api('POST', '/admin/api/email-lists', { name: 'Injection' })).body.id
    expect(await s.api('POST', `/admin/api/email-lists/${list}/broadcasts`, { subject: 'Hi\r\nBcc: victim@example.com', text: 'x' }))
      .toMatchObject({ status: 400, body: { error: 'subject: must not contain line breaks or control characters' } })
    expect(await s.api('POST', '/admin/api/email-lists/999999/broadcasts', { subject: 'x', text: 'x' }))
      .toMatchObject({ status: 404, body: { error: 'email list not found' } })
    expect((await s.api('POST', `/admin/api/email-lists/${list}/broadcasts`, { subject: 'x' })).status).toBe(400)
    // An empty list: nothing to send.
    expect((await s.api('POST', `/admin/api/email-lists/${list}/broadcasts`, { subject: 'x', text: 'y' })).body)
      .toEqual({ list_id: list, messages: 0, status: 'queued' })
  })

  test('email_from must be an address, optionally with a name', async () => {
    for (const bad of ['not an address', 'Shop\r\nBcc: x <a@b.example>', '"Quoted" <a@b.example>']) {
      expect(await s.api('PUT', '/admin/api/settings', { email_from: bad }))
        .toMatchObject({ status: 400, body: { error: 'email_from: must be an email address, optionally "Name <address>"' } })
    }
    expect((await s.api('GET', '/admin/api/settings')).body.email_from).toBe('Shop News <news@shop.example>')
  })
})

describe('without a relay, then with one', () => {
  test('messages wait as unsent, survive the restart and go out; an address unsubscribed meanwhile is suppressed', async () => {
    const relay = await startRelay()
    const first = await startServer(JOBS_FAST)
    let second: TestServer | null = null
    try {
      await first.api('PUT', '/admin/api/settings', { email_from: 'news@shop.example' })
      const list = (await first.api('POST', '/admin/api/email-lists', { name: 'Later' })).body.id
      const subs: number[] = []
      for (const email of ['one@example.com', 'two@example.com', 'gone@example.com']) {
        subs.push((await first.api('POST', `/admin/api/email-lists/${list}/subscribers`, { email })).body.id)
      }
      const res = await first.api('POST', `/admin/api/email-lists/${list}/broadcasts`, { subject: 'Welcome', text: 'Hello {email}' })
      expect(res.body).toEqual({ list_id: list, messages: 3, status: 'unsent' })
      expect((await outboxOf(first, list)).map((r) => [r.to, r.status, r.job])).toEqual([
        ['gone@example.com', 'unsent', null], ['two@example.com', 'unsent', null], ['one@example.com', 'unsent', null],
      ])
      // The person unsubscribes before any relay exists (the unsubscribe link arrives with a later part of issue 9).
      await testDb(first).run("UPDATE email_subscribers SET status = 'unsubscribed' WHERE id = $id", { id: subs[2] })
      await first.stop()

      second = await startServer({ ...JOBS_FAST, SVC_SMTP_URL: relay.url }, first.dataDir)
      const rows = await eventually(async () => {
        const r = await outboxOf(second!, list)
        return r.every((x) => x.status === 'sent' || x.status === 'suppressed') ? r : undefined
      }, 15_000, 'unsent messages sent after the restart')
      expect(rows.map((r) => [r.to, r.status, r.status === 'suppressed' ? r.result : null])).toEqual([
        ['gone@example.com', 'suppressed', 'unsubscribed'], ['two@example.com', 'sent', null], ['one@example.com', 'sent', null],
      ])
      expect(relay.received.map((m) => m.to[0]).sort()).toEqual(['one@example.com', 'two@example.com'])
      const two = relay.received.find((m) => m.to[0] === 'two@example.com')!
      expect(two.raw).toContain('Hello two@example.com')
      // Without SVC_PUBLIC_URL there is no https link: the mailto form only, and no one-click header.
      expect(header(two.raw, 'List-Unsubscribe')).toMatch(/^<mailto:news@shop\.example\?subject=unsubscribe%20v1\.\d+\.\d+\.[A-Za-z0-9_-]{22}>$/)
      expect(header(two.raw, 'List-Unsubscribe-Post')).toBeUndefined()
      const filtered = await second.api('GET', '/admin/api/outbox?status=suppressed')
      expect(filtered.body.items.map((r: { to: string }) => r.to)).toEqual(['gone@example.com'])
      expect(await second.api('GET', '/admin/api/outbox?status=lost')).toMatchObject({ status: 400 })
    } finally {
      await second?.destroy()
      if (!second) await first.destroy()
      else rmSync(first.dataDir, { recursive: true, force: true })
      relay.close()
    }
  })
})

describe('a relay that requires authentication', () => {
  test('the user and password of SVC_SMTP_URL (percent-encoded) log in; wrong ones fail with the relay\'s 535', async () => {
    const relay = await startRelay(() => {}, { user: 'mailer@shop.example', pass: 'p@ss:word' })
    const port = new URL(relay.url).port
    const good = await startServer({ ...JOBS_FAST, SVC_SMTP_URL: `smtp://mailer%40shop.example:p%40ss%3Aword@127.0.0.1:${port}` })
    const bad = await startServer({ ...JOBS_FAST, SVC_SMTP_URL: `smtp://mailer%40shop.example:wrong@127.0.0.1:${port}` })
    try {
      for (const srv of [good, bad]) {
        await srv.api('PUT', '/admin/api/settings', { email_from: 'news@shop.example' })
        const list = (await srv.api('POST', '/admin/api/email-lists', { name: 'Auth' })).body.id
        await srv.api('POST', `/admin/api/email-lists/${list}/subscribers`, { email: srv === good ? 'in@example.com' : 'out@example.com' })
        await srv.api('POST', `/admin/api/email-lists/${list}/broadcasts`, { subject: 'Hi', text: 'x' })
      }
      await eventually(() => relay.received.find((m) => m.to[0] === 'in@example.com'), 10_000, 'delivered with credentials')
      const failed = await eventually(async () => {
        const r = (await outboxOf(bad, 1))[0]
        return r?.job?.status === 'failed' ? r : undefined
      }, 10_000, 'refused without them')
      expect(failed.job!.last_error).toStartWith('SMTP 535: ')
      expect(relay.received.some((m) => m.to[0] === 'out@example.com')).toBe(false)
    } finally {
      await good.destroy()
      await bad.destroy()
      relay.close()
    }
  })
})
