// Bounce and complaint webhooks (POST /webhook/mail/:provider), on either engine: each provider is checked
// with what it offers (401 otherwise), a hard bounce or a complaint suppresses the address in every list,
// a soft bounce is only counted, a redelivery changes nothing, and the SNS handshake becomes a job.
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
