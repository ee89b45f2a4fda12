// Bounce and complaint webhooks (POST /webhook/mail/:provider), on either engine: each provider is checked
// with what it offers (401 otherwise), a hard bounce or a complaint suppresses the address in every list,
// a soft bounce is only counted, a redelivery changes nothing, a Mailgun signature carries one body only, and the SNS handshake becomes a job.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHmac, generateKeyPairSync, sign } from 'node:crypto'
import { startServer, type TestServer } from '../helpers/server'
import { testDb } from '../helpers/db'

let s: TestServer
let listA: number
let listB: number
const TOKEN = 'mail-webhook-token-0123456789'
const MAILGUN_KEY = 'key-mailgun-signing-0123456789'
const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
const SENDGRID_PUB = publicKey.export({ format: 'der', type: 'spki' }).toString('base64')

beforeAll(async () => {
  s = await startServer()
  const put = await s.api('PUT', '/admin/api/settings', {
    mail_webhook_token: TOKEN, postmark_webhook_credentials: 'pm-user:pm-pass-123', mailgun_webhook_signing_key: MAILGUN_KEY, sendgrid_webhook_public_key: SENDGRID_PUB,
  })
  expect(put.status).toBe(200)
  listA = (await s.api('POST', '/admin/api/email-lists', { name: 'A' })).body.id
  listB = (await s.api('POST', '/admin/api/email-lists', { name: 'B' })).body.id
  for (const email of ['hard@example.com', 'soft@example.com', 'comp@example.com', 'pm@example.com', 'pmspam@example.com', 'mg@example.com', 'mgout@example.com', 'sg@example.com', 'sgspam@example.com', 'ses@example.com']) {
    await s.api('POST', `/admin/api/email-lists/${listA}/subscribers`, { email })
  }
  await s.api('POST', `/admin/api/email-lists/${listB}/subscribers`, { email: 'hard@example.com' })
})
afterAll(() => s.destroy())

const hook = (provider: string, body: string, headers: Record<string, string> = {}, query = '') =>
  fetch(`${s.base}/webhook/mail/${provider}${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
    .then(async (r) => ({ status: r.status, body: await r.json() as any }))
const statuses = async (email: string) =>
  (await testDb(s).all<{ list_id: number; status: string }>('SELECT list_id, status FROM email_subscribers WHERE email = $email ORDER BY list_id', { email })).map((r) => [Number(r.list_id), r.status])

describe('POST /webhook/mail/generic', () => {
  test('token in the URL; hard bounce suppresses everywhere, soft only counts; redelivery is a no-op; any content type', async () => {
    const body = JSON.stringify([
      { type: 'bounce', hard: true, email: 'Hard@Example.com', id: 'g1' },
      { type: 'bounce', hard: false, email: 'soft@example.com', id: 'g2' },
      { type: 'delivery', email: 'soft@example.com', id: 'g3' },
    ])
    expect(await hook('generic', body)).toEqual({ status: 401, body: { error: 'invalid token' } })
    expect(await hook('generic', body, {}, '?token=wrong-token-0123456789')).toEqual({ status: 401, body: { error: 'invalid token' } })
    expect(await hook('generic', body, { 'content-type': 'text/plain' }, `?token=${TOKEN}`)).toEqual({ status: 200, body: { ok: true, recorded: 2, duplicates: 0 } })
    expect(await statuses('hard@example.com')).toEqual([[listA, 'bounced'], [listB, 'bounced']])
    expect(await statuses('soft@example.com')).toEqual([[listA, 'active']])
    expect((await testDb(s).all("SELECT kind FROM mail_events WHERE email = 'soft@example.com'"))).toHaveLength(1)
    expect(await hook('generic', body, {}, `?token=${TOKEN}`)).toEqual({ status: 200, body: { ok: true, recorded: 0, duplicates: 2 } })
    expect(await hook('generic', '{"type":', {}, `?token=${TOKEN}`)).toEqual({ status: 400, body: { error: 'body is not JSON' } })
    expect(await hook('nope', body)).toEqual({ status: 404, body: { error: 'unknown mail provider' } })
    // What was reported, as the admin sees it: newest first, the soft bounce counted.
    const events = await s.api('GET', '/admin/api/mail-events?kind=bounce')
    expect(events.status).toBe(200)
    expect(events.body.items.map((e: any) => [e.provider, e.kind, e.hard, e.email])).toEqual([
      ['generic', 'bounce', false, 'soft@example.com'], ['generic', 'bounce', true, 'hard@example.com'],
    ])
    expect((await s.api('GET', '/admin/api/mail-events?email=Soft@Example.com')).body.items).toHaveLength(1)
    expect((await s.api('GET', '/admin/api/mail-events?kind=nope')).status).toBe(400)
    // A broadcast leaves the bounced address out.
    expect((await s.api('GET', `/admin/api/email-lists/${listB}`)).body.active_subscribers).toBe(0)
  })
})

describe('POST /webhook/mail/ses (Amazon SES via SNS)', () => {
  test('the subscription handshake becomes a job fetching SubscribeURL (sns.*.amazonaws.com only); a complaint suppresses', async () => {
    const confirm = (url: string) => hook('ses', JSON.stringify({ Type: 'SubscriptionConfirmation', MessageId: 'm0', Token: 't', SubscribeURL: url }),
      { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'SubscriptionConfirmation' }, `?token=${TOKEN}`)
    const url = 'https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=arn&Token=abc'
    expect(await confirm(url)).toEqual({ status: 200, body: { ok: true, confirming: true } })
    const job = await testDb(s).get<{ kind: string; payload: string; section: string }>("SELECT kind, payload, section FROM jobs WHERE kind = 'sns_confirm'")
    expect(job).toEqual({ kind: 'sns_confirm', payload: JSON.stringify({ url }), section: 'email' })
    for (const bad of ['https://evil.example/confirm', 'http://sns.eu-west-1.amazonaws.com/x', 'https://sns.eu-west-1.amazonaws.com.evil.example/']) {
      expect(await confirm(bad)).toEqual({ status: 400, body: { error: 'SubscribeURL must be an https URL on sns.<region>.amazonaws.com' } })
    }
    const message = { notificationType: 'Complaint', complaint: { complainedRecipients: [{ emailAddress: 'ses@example.com' }], timestamp: '2026-11-20T10:00:00Z' } }
    const notification = JSON.stringify({ Type: 'Notification', MessageId: 'sns-1', Message: JSON.stringify(message) })
    expect(await hook('ses', notification, { 'x-amz-sns-message-type': 'Notification' })).toMatchObject({ status: 401 })
    expect(await hook('ses', notification, { 'x-amz-sns-message-type': 'Notification' }, `?token=${TOKEN}`)).toEqual({ status: 200, body: { ok: true, recorded: 1, duplicates: 0 } })
    expect(await statuses('ses@example.com')).toEqual([[listA, 'complained']])
  })
})

describe('POST /webhook/mail/postmark', () => {
  test('HTTP Basic credentials; HardBounce and SpamComplaint suppress', async () => {
    const basic = (c: string) => ({ authorization: `Basic ${Buffer.from(c).toString('base64')}` })
    const bounce = JSON.stringify({ RecordType: 'Bounce', ID: 42, Type: 'HardBounce', Email: 'pm@example.com', BouncedAt: '2026-11-20T10:00:00-04:00' })
    expect(await hook('postmark', bounce)).toEqual({ status: 401, body: { error: 'invalid credentials' } })
    expect(await hook('postmark', bounce, basic('pm-user:wrong'))).toEqual({ status: 401, body: { error: 'invalid credentials' } })
    expect(await hook('postmark', bounce, basic('pm-user:pm-pass-123'))).toEqual({ status: 200, body: { ok: true, recorded: 1, duplicates: 0 } })
    expect(await hook('postmark', JSON.stringify({ RecordType: 'SpamComplaint', ID: 43, Email: 'pmspam@example.com' }), basic('pm-user:pm-pass-123'))).toMatchObject({ status: 200 })
    expect([await statuses('pm@example.com'), await statuses('pmspam@example.com')]).toEqual([[[listA, 'bounced']], [[listA, 'complained']]])
  })
})

describe('POST /webhook/mail/mailgun', () => {
  // A token whose signature expired long ago: the first Mailgun webhook of this instance prunes it.
  beforeAll(() => testDb(s).run("INSERT INTO mail_webhook_tokens (provider, token, body_hash, expires_at, created_at) VALUES ('mailgun', 'old-token', 'x', 1000, 1000)"))
  const signed = (data: object, ts = String(Math.floor(Date.now() / 1000)), token = crypto.randomUUID().replace(/-/g, '') + 'abcdefghijklmnopqr', key = MAILGUN_KEY) =>
    JSON.stringify({ signature: { timestamp: ts, token, signature: createHmac('sha256', key).update(ts + token).digest('hex') }, 'event-data': data })

  test('HMAC of timestamp + token with the signing key; stale signatures refused; failed/permanent and unsubscribed', async () => {
    const failed = { event: 'failed', severity: 'permanent', recipient: 'mg@example.com', id: 'mg-1', timestamp: Date.now() / 1000 }
    expect(await hook('mailgun', signed(failed, undefined, undefined, 'another-key'))).toEqual({ status: 401, body: { error: 'invalid signature' } })
    expect(await hook('mailgun', signed(failed, String(Math.floor(Date.now() / 1000) - 3600)))).toEqual({ status: 401, body: { error: 'stale signature' } })
    expect(await hook('mailgun', signed({ ...failed, severity: 'temporary', id: 'mg-0' }))).toEqual({ status: 200, body: { ok: true, recorded: 1, duplicates: 0 } })
    expect(await statuses('mg@example.com')).toEqual([[listA, 'active']])
    expect(await hook('mailgun', signed(failed))).toEqual({ status: 200, body: { ok: true, recorded: 1, duplicates: 0 } })
    expect(await hook('mailgun', signed({ event: 'unsubscribed', recipient: 'mgout@example.com', id: 'mg-2' }))).toMatchObject({ status: 200 })
    expect([await statuses('mg@example.com'), await statuses('mgout@example.com')]).toEqual([[[listA, 'bounced']], [[listA, 'unsubscribed']]])
  })

  // Issue 25, finding 7: Mailgun's HMAC covers the timestamp and token only, so a token is remembered until
  // its signature is stale, and a second body under it is refused.
  const victims = ['mgvictim@example.com', 'mgrace1@example.com', 'mgrace2@example.com', 'mgrace3@example.com', 'mgrace4@example.com', 'mgrace5@example.com', 'mgfuture@example.com', 'mgskew@example.com']
  const token = (tag: string) => `${tag}-${crypto.randomUUID().replace(/-/g, '')}`.padEnd(50, 'x')
  const now = () => Math.floor(Date.now() / 1000)

  test('a signature is used once: a delivery\'s signature resent as a complaint is refused (401); the same body again is a redelivery (200, nothing twice)', async () => {
    for (const email of victims) await s.api('POST', `/admin/api/email-lists/${listA}/subscribers`, { email })
    const ts = String(now())
    const tok = token('replay')
    const delivered = signed({ event: 'delivered', recipient: 'mg@example.com', id: 'mg-delivered-1' }, ts, tok)
    expect(await hook('mailgun', delivered)).toEqual({ status: 200, body: { ok: true, recorded: 0, duplicates: 0 } })
    const forged = JSON.stringify({ signature: JSON.parse(delivered).signature, 'event-data': { event: 'complained', recipient: 'mgvictim@example.com', id: 'mg-forged-1' } })
    expect(await hook('mailgun', forged)).toEqual({ status: 401, body: { error: 'signature already used' } })
    expect(await statuses('mgvictim@example.com')).toEqual([[listA, 'active']])
    expect(await testDb(s).all("SELECT id FROM mail_events WHERE email = 'mgvictim@example.com'")).toEqual([])
    // The provider's own redelivery of the same body: 200, so it stops retrying; nothing recorded twice.
    expect(await hook('mailgun', delivered)).toEqual({ status: 200, body: { ok: true, recorded: 0, duplicates: 0 } })
    const tok2 = token('redeliver')
    const bounce = signed({ event: 'failed', severity: 'temporary', recipient: 'mgvictim@example.com', id: 'mg-soft-1' }, ts, tok2)
    expect(await hook('mailgun', bounce)).toEqual({ status: 200, body: { ok: true, recorded: 1, duplicates: 0 } })
    expect(await hook('mailgun', bounce)).toEqual({ status: 200, body: { ok: true, recorded: 0, duplicates: 1 } })
    // Kept (durable, shared by every instance) until the signature would be stale anyway.
    expect(await testDb(s).all('SELECT provider, expires_at FROM mail_webhook_tokens WHERE token IN ($a, $b) ORDER BY token', { a: tok, b: tok2 }))
      .toEqual([{ provider: 'mailgun', expires_at: (Number(ts) + 901) * 1000 }, { provider: 'mailgun', expires_at: (Number(ts) + 901) * 1000 }])
    // and pruned once expired.
    expect(await testDb(s).all("SELECT token FROM mail_webhook_tokens WHERE token = 'old-token'")).toEqual([])
  })

  test('five different bodies under one token at once: exactly one is recorded', async () => {
    const ts = String(now())
    const tok = token('race')
    const bodies = [1, 2, 3, 4, 5].map((n) => signed({ event: 'complained', recipient: `mgrace${n}@example.com`, id: `mg-race-${n}` }, ts, tok))
    const answers = await Promise.all(bodies.map((b) => hook('mailgun', b)))
    expect(answers.filter((a) => a.status === 200)).toEqual([{ status: 200, body: { ok: true, recorded: 1, duplicates: 0 } }])
    expect(answers.filter((a) => a.status === 401)).toHaveLength(4)
    const complained = (await Promise.all([1, 2, 3, 4, 5].map((n) => statuses(`mgrace${n}@example.com`)))).filter((st) => st[0]![1] === 'complained')
    expect(complained).toHaveLength(1)
  })

  test('a timestamp more than a minute ahead is refused (14 minutes ahead was accepted); 50 s of clock skew is fine', async () => {
    const ahead = signed({ event: 'complained', recipient: 'mgfuture@example.com', id: 'mg-future-1' }, String(now() + 14 * 60))
    expect(await hook('mailgun', ahead)).toEqual({ status: 401, body: { error: 'signature timestamp is in the future' } })
    expect(await hook('mailgun', signed({ event: 'complained', recipient: 'mgfuture@example.com', id: 'mg-future-2' }, String(now() + 90)))).toEqual({ status: 401, body: { error: 'signature timestamp is in the future' } })
    expect(await statuses('mgfuture@example.com')).toEqual([[listA, 'active']])
    expect(await hook('mailgun', signed({ event: 'complained', recipient: 'mgskew@example.com', id: 'mg-skew-1' }, String(now() + 50)))).toEqual({ status: 200, body: { ok: true, recorded: 1, duplicates: 0 } })
    // Not whole seconds: refused like any bad signature, even when signed.
    expect(await hook('mailgun', signed({ event: 'complained', recipient: 'mgfuture@example.com', id: 'mg-future-3' }, `${now()}.5`))).toEqual({ status: 401, body: { error: 'invalid signature' } })
  })
})

describe('POST /webhook/mail/sendgrid', () => {
  const headersFor = (body: string, ts = String(Math.floor(Date.now() / 1000))) => ({
    'x-twilio-email-event-webhook-timestamp': ts,
    'x-twilio-email-event-webhook-signature': sign('sha256', Buffer.from(ts + body), privateKey).toString('base64'),
  })

  test('ECDSA signature over timestamp + raw body; bounce and spamreport suppress, a delivery changes nothing', async () => {
    const body = JSON.stringify([
      { email: 'sg@example.com', event: 'bounce', type: 'bounce', sg_event_id: 'sg-1', timestamp: 1763700000 },
      { email: 'sgspam@example.com', event: 'spamreport', sg_event_id: 'sg-2', timestamp: 1763700000 },
      { email: 'soft@example.com', event: 'delivered', sg_event_id: 'sg-3', timestamp: 1763700000 },
    ])
    expect(await hook('sendgrid', body)).toEqual({ status: 401, body: { error: 'invalid signature' } })
    const h = headersFor(body)
    expect(await hook('sendgrid', body.replace('sg-1', 'sg-9'), h)).toEqual({ status: 401, body: { error: 'invalid signature' } })
    expect(await hook('sendgrid', body, h)).toEqual({ status: 200, body: { ok: true, recorded: 2, duplicates: 0 } })
    expect([await statuses('sg@example.com'), await statuses('sgspam@example.com'), await statuses('soft@example.com')])
      .toEqual([[[listA, 'bounced']], [[listA, 'complained']], [[listA, 'active']]])
    expect(await hook('sendgrid', '{"not":"an array"}', headersFor('{"not":"an array"}'))).toEqual({ status: 400, body: { error: 'a SendGrid event webhook body is a JSON array' } })
  })

  test('the settings check what they hold', async () => {
    expect(await s.api('PUT', '/admin/api/settings', { sendgrid_webhook_public_key: 'not-a-key' }))
      .toMatchObject({ status: 400, body: { error: 'sendgrid_webhook_public_key: must be the base64 public key SendGrid shows for the signed event webhook' } })
    expect(await s.api('PUT', '/admin/api/settings', { mail_webhook_token: 'short' }))
      .toMatchObject({ status: 400, body: { error: 'mail_webhook_token: must be at least 16 characters (a short secret can be guessed)' } })
    const view = (await s.api('GET', '/admin/api/settings')).body
    expect([view.mail_webhook_token, view.postmark_webhook_credentials, view.mailgun_webhook_signing_key]).toEqual(['********', '********', '********'])
  })
})
