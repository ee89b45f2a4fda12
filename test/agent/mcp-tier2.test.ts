// Tier-2 confirmations of the agent API (/mcp) end to end, on either engine (SVC_TEST_ENGINE=postgres): the first
// call of a deletion, refund, bulk send or secret change acts on nothing and answers a preview with a
// confirm_token; the same call with the token acts once; a repeat replays the first result (across a
// restart too); a token for other arguments, another tool or another agent, a tampered or an expired one
// is refused; secrets never reach the audit log.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { commerceStore } from '../../src/commerce/store'
import type { AnyDatabase } from '../../src/db/engine'
import { Confirmations } from '../../src/agent/mcp/confirm'
import { startServer, TEST_ENV, type TestServer } from '../helpers/server'
import { auditOf, call, callError, createToken, ISO, outboxOf, seedCampaign, structured, toolError, withClient } from './helpers'

let s: TestServer
let all: Awaited<ReturnType<typeof createToken>>

beforeAll(async () => {
  s = await startServer()
  all = await createToken(s, { name: 'tier2 agent', scopes: ['all'], rate_limits: { default: 10_000, ai: 10_000 } })
})
afterAll(() => s.destroy())

const CONFIRM_TOKEN = /^\d{13}\.[A-Za-z0-9_-]{43}$/
const NEXT = (tool: string) => `call ${tool} again with the same arguments plus "confirm_token" to act`
const MISMATCH = 'invalid: confirm_token does not match this tool and these exact arguments (call without it for a new preview)'

interface Preview {
  confirmation_required: true
  tool: string
  effect: string
  preview: { record?: unknown; note?: string; arguments: Record<string, unknown> }
  confirm_token: string
  expires_at: string
  next: string
}

/** The first call of a Tier-2 tool: checks the preview's frame and returns it. */
async function preview(client: Client, tool: string, args: Record<string, unknown>): Promise<Preview> {
  const started = Date.now()
  const p = await call<Preview>(client, tool, args)
  expect(Object.keys(p).sort()).toEqual(['confirm_token', 'confirmation_required', 'effect', 'expires_at', 'next', 'preview', 'tool'])
  expect(p.confirmation_required).toBe(true)
  expect(p.tool).toBe(tool)
  expect(typeof p.effect).toBe('string')
  expect(p.preview.arguments).toEqual(args)
  expect(p.confirm_token).toMatch(CONFIRM_TOKEN)
  expect(p.expires_at).toMatch(ISO)
  // Valid five minutes.
  const ttl = Date.parse(p.expires_at) - started
  expect(ttl).toBeGreaterThan(4.9 * 60_000)
  expect(ttl).toBeLessThanOrEqual(5 * 60_000 + 5_000)
  expect(p.next).toBe(NEXT(tool))
  return p
}

/** Three active subscribers on a fresh list; its id. */
async function listOfThree(name: string): Promise<number> {
  const list = await s.api('POST', '/admin/api/email-lists', { name })
  expect(list.status).toBe(201)
  for (const email of ['ann@example.com', 'bob@example.com', 'cy@example.com']) {
    expect((await s.api('POST', `/admin/api/email-lists/${list.body.id}/subscribers`, { email })).status).toBe(201)
  }
  return list.body.id
}

describe('delete_campaign', () => {
  test('the first call deletes nothing and previews the campaign; the confirmed call deletes; a repeat replays {ok:true}', async () => {
    const { campaignId } = await seedCampaign(s, 'tier2-delete')
    await withClient(s, all.token, async (client) => {
      const p = await preview(client, 'delete_campaign', { id: campaignId })
      expect(p.effect).toBe('Delete a campaign (conflict once it has clicks: deactivate it instead)')
      expect((await s.api('GET', `/admin/api/campaigns/${campaignId}`)).status).toBe(200)

      expect(await call(client, 'delete_campaign', { id: campaignId, confirm_token: p.confirm_token })).toEqual({ ok: true })
      expect(await s.api('GET', `/admin/api/campaigns/${campaignId}`)).toMatchObject({ status: 404, body: { error: 'campaign not found' } })
      // Acts once: the repeat is the first answer, not a 404.
      expect(await call(client, 'delete_campaign', { id: campaignId, confirm_token: p.confirm_token })).toEqual({ ok: true })
      // Without a token the deleted campaign previews as missing: a new confirmation then meets the 404.
      const again = await preview(client, 'delete_campaign', { id: campaignId })
      expect(again.preview).toEqual({ record: null, note: 'not_found: campaign not found', arguments: { id: campaignId } })
      expect(await callError(client, 'delete_campaign', { id: campaignId, confirm_token: again.confirm_token })).toBe('not_found: campaign not found')
    })
    const rows = await auditOf(s, { token_id: all.id, tool: 'delete_campaign' })
    expect(rows.slice(0, 5).map((r) => [r.outcome, r.error, r.arguments])).toEqual([
      ['error', 'not_found: campaign not found', { id: campaignId, confirm_token: '[redacted]' }],
      ['confirmation_required', null, { id: campaignId }],
      ['replayed', null, { id: campaignId, confirm_token: '[redacted]' }],
      ['ok', null, { id: campaignId, confirm_token: '[redacted]' }],
      ['confirmation_required', null, { id: campaignId }],
    ])
  })

  test('the preview shows the record in its REST shape (snake_case, ISO times), as GET /admin/api/<collection>/:id does', async () => {
    const { campaignId } = await seedCampaign(s, 'tier2-preview-shape')
    const rest = (await s.api('GET', `/admin/api/campaigns/${campaignId}`)).body
    await withClient(s, all.token, async (client) => {
      const p = await preview(client, 'delete_campaign', { id: campaignId })
      expect(p.preview).toEqual({ record: rest, arguments: { id: campaignId } })
      const source = await call(client, 'create_source', { name: 'Preview source' })
      expect((await preview(client, 'delete_source', { id: source.id })).preview).toEqual({ record: source, arguments: { id: source.id } })
      const order = await commerceStore(s.ctx.database as AnyDatabase).createOrder({
        source: 'native', externalId: 'tier2-preview-order', status: 'paid', currency: 'USD', total: 5, email: null, clickId: null, now: Date.now(),
      })
      const restOrder = (await s.api('GET', `/admin/api/orders/${order.id}`)).body
      expect((await preview(client, 'refund_order', { id: order.id })).preview).toEqual({ record: restOrder, arguments: { id: order.id } })
    })
  })

  test('a confirm_token for other arguments, another tool or another agent, or a tampered one, is refused and deletes nothing', async () => {
    const a = await seedCampaign(s, 'tier2-mismatch-a')
    const b = await seedCampaign(s, 'tier2-mismatch-b')
    const other = await createToken(s, { name: 'other agent', scopes: ['campaigns:write', 'campaigns:read'] })
    const offerBefore = (await s.api('GET', `/admin/api/offers/${a.campaignId}`)).status
    await withClient(s, all.token, async (client) => {
      const p = await preview(client, 'delete_campaign', { id: a.campaignId })
      expect(await callError(client, 'delete_campaign', { id: b.campaignId, confirm_token: p.confirm_token })).toBe(MISMATCH)
      expect(await callError(client, 'delete_offer', { id: a.campaignId, confirm_token: p.confirm_token })).toBe(MISMATCH)
      const [expiry, signature] = p.confirm_token.split('.') as [string, string]
      const flipped = signature.slice(0, -1) + (signature.endsWith('A') ? 'B' : 'A')
      for (const tampered of [`${expiry}.${flipped}`, `${Number(expiry) + 60_000}.${signature}`, 'garbage', '', `${p.confirm_token}x`]) {
        expect({ tampered, error: await callError(client, 'delete_campaign', { id: a.campaignId, confirm_token: tampered }) }).toEqual({ tampered, error: MISMATCH })
      }
      await withClient(s, other.token, async (otherClient) => {
        expect(await callError(otherClient, 'delete_campaign', { id: a.campaignId, confirm_token: p.confirm_token })).toBe(MISMATCH)
      })
    })
    for (const c of [a, b]) expect((await s.api('GET', `/admin/api/campaigns/${c.campaignId}`)).status).toBe(200)
    expect((await s.api('GET', `/admin/api/offers/${a.campaignId}`)).status).toBe(offerBefore)
    expect((await auditOf(s, { token_id: other.id })).map((r) => [r.tool, r.outcome, r.error])).toEqual([['delete_campaign', 'denied', MISMATCH]])
    // Argument order does not matter (canonical JSON): the same arguments in another order confirm.
    await withClient(s, all.token, async (client) => {
      const list = await call(client, 'create_email_list', { name: 'Order test' })
      const p = await preview(client, 'send_broadcast', { id: list.id, subject: 'S', text: 'T' })
      expect(await call(client, 'send_broadcast', { text: 'T', confirm_token: p.confirm_token, subject: 'S', id: list.id })).toEqual({ list_id: list.id, messages: 0, status: 'unsent' })
    })
  })

  test('an expired confirm_token is refused with its own message and deletes nothing', async () => {
    const { campaignId } = await seedCampaign(s, 'tier2-expired')
    // Issued six minutes ago with the server's key (the same SVC_SECRET), as the first call would have.
    const stale = new Confirmations(TEST_ENV.SVC_SECRET!).issue(all.id, 'delete_campaign', { id: campaignId }, Date.now() - 6 * 60_000)
    await withClient(s, all.token, async (client) => {
      expect(await callError(client, 'delete_campaign', { id: campaignId, confirm_token: stale.token }))
        .toBe('invalid: confirm_token expired (valid 5 minutes); call without it for a new preview')
      // A fresh key of the same shape, for the same call and still valid: acts (so the stale one failed on its age alone).
      const fresh = new Confirmations(TEST_ENV.SVC_SECRET!).issue(all.id, 'delete_campaign', { id: campaignId })
      expect((await s.api('GET', `/admin/api/campaigns/${campaignId}`)).status).toBe(200)
      expect(await call(client, 'delete_campaign', { id: campaignId, confirm_token: fresh.token })).toEqual({ ok: true })
    })
  })

  test('a confirmed call that fails did nothing: the same confirmation acts once its cause is fixed', async () => {
    const { campaignId } = await seedCampaign(s, 'tier2-release')
    const source = (await s.api('POST', '/admin/api/sources', { name: 'Busy source' })).body
    expect((await s.api('PATCH', `/admin/api/campaigns/${campaignId}`, { source_id: source.id })).status).toBe(200)
    await withClient(s, all.token, async (client) => {
      const p = await preview(client, 'delete_source', { id: source.id })
      const conflict = await callError(client, 'delete_source', { id: source.id, confirm_token: p.confirm_token })
      expect(conflict).toStartWith('conflict: ')
      expect((await s.api('GET', `/admin/api/sources/${source.id}`)).status).toBe(200)
      expect((await s.api('PATCH', `/admin/api/campaigns/${campaignId}`, { source_id: null })).status).toBe(200)
      expect(await call(client, 'delete_source', { id: source.id, confirm_token: p.confirm_token })).toEqual({ ok: true })
      expect((await s.api('GET', `/admin/api/sources/${source.id}`)).status).toBe(404)
    })
  })
})

describe('send_broadcast', () => {
  test('preview queues nothing; confirmed twice, a list of 3 gets exactly 3 messages', async () => {
    const list = await listOfThree('Tier2 once')
    await withClient(s, all.token, async (client) => {
      const args = { id: list, subject: 'Hello {email}', text: 'News' }
      const p = await preview(client, 'send_broadcast', args)
      expect(p.effect).toStartWith('Send one message to every active subscriber of a list')
      expect(await outboxOf(s, list)).toEqual([])
      const first = await call(client, 'send_broadcast', { ...args, confirm_token: p.confirm_token })
      expect(first).toEqual({ list_id: list, messages: 3, status: 'unsent' })
      expect(await call(client, 'send_broadcast', { ...args, confirm_token: p.confirm_token })).toEqual(first)
      const outbox = await outboxOf(s, list)
      expect(outbox.map((m) => m.to).sort()).toEqual(['ann@example.com', 'bob@example.com', 'cy@example.com'])
      expect((await call(client, 'list_outbox', { list_id: String(list) })).items).toHaveLength(3)
      // Changed text with the old token: refused, nothing more queued.
      expect(await callError(client, 'send_broadcast', { ...args, text: 'Other news', confirm_token: p.confirm_token })).toBe(MISMATCH)
      expect(await outboxOf(s, list)).toHaveLength(3)
    })
  })

  test('the preview shows the list in its REST shape', async () => {
    const list = await listOfThree('Tier2 preview list')
    const rest = (await s.api('GET', `/admin/api/email-lists/${list}`)).body
    await withClient(s, all.token, async (client) => {
      const p = await preview(client, 'send_broadcast', { id: list, subject: 'S', text: 'T' })
      expect(p.preview).toEqual({ record: rest, arguments: { id: list, subject: 'S', text: 'T' } })
    })
  })

  test('two confirmed calls at the same moment send once', async () => {
    const list = await listOfThree('Tier2 race')
    await withClient(s, all.token, async (client) => {
      const args = { id: list, subject: 'Race', text: 'x' }
      const p = await preview(client, 'send_broadcast', args)
      const results = await Promise.all([1, 2, 3].map(() => client.callTool({ name: 'send_broadcast', arguments: { ...args, confirm_token: p.confirm_token } })))
      const answers = results.map((r) => (r.isError ? toolError(r) : structured(r)))
      // Each one is the first result, or (while it still runs) a conflict to repeat.
      for (const a of answers) {
        if (typeof a === 'string') expect(a).toBe('conflict: this confirmed call is still running; repeat it in a moment for its result')
        else expect(a).toEqual({ list_id: list, messages: 3, status: 'unsent' })
      }
      expect(answers.some((a) => typeof a !== 'string')).toBe(true)
      expect(await outboxOf(s, list)).toHaveLength(3)
    })
  })
})

describe('settings and users', () => {
  test('update_settings touching postback_secret is Tier 2; the secret is set once confirmed and never reaches the audit log', async () => {
    const secret = 'agent-set-postback-secret-9f3a7c'
    await withClient(s, all.token, async (client) => {
      const p = await preview(client, 'update_settings', { postback_secret: secret })
      expect(p.effect).toBe('Change some settings')
      expect((await s.api('GET', '/admin/api/settings')).body.postback_secret).toBeNull()
      const done = await call(client, 'update_settings', { postback_secret: secret, confirm_token: p.confirm_token })
      expect(done.postback_secret).toBe('********')
      expect(JSON.stringify(done)).not.toContain(secret)
      const rest = (await s.api('GET', '/admin/api/settings')).body
      expect(rest.postback_secret).toBe('********')
      expect(rest.warnings).toEqual([])
      expect((await call(client, 'get_settings')).postback_secret).toBe('********')
      // The stored secret is the one sent (the answers only ever show it masked).
      expect(s.ctx.settings.get('postback_secret')).toBe(secret)
      expect(await call(client, 'update_settings', { postback_secret: secret, confirm_token: p.confirm_token })).toEqual(done)
    })
    const rows = await auditOf(s, { token_id: all.id, tool: 'update_settings' })
    expect(rows.slice(0, 3).map((r) => [r.outcome, r.arguments])).toEqual([
      ['replayed', { postback_secret: '[redacted]', confirm_token: '[redacted]' }],
      ['ok', { postback_secret: '[redacted]', confirm_token: '[redacted]' }],
      ['confirmation_required', { postback_secret: '[redacted]' }],
    ])
    const text = (await s.api('GET', '/admin/api/audit?limit=500')).text
    expect(text).not.toContain(secret)
    const listed = await withClient(s, all.token, (client) => call(client, 'list_audit', { tool: 'update_settings', limit: '500' }))
    expect(JSON.stringify(listed)).not.toContain(secret)
  })

  test('update_user is Tier 2, with a password or without one (a permission change is one too)', async () => {
    const user = (await s.api('POST', '/admin/api/users', { email: 'tier2-user@example.com', password: 'first-password-1' })).body
    await withClient(s, all.token, async (client) => {
      const asked = await preview(client, 'update_user', { id: user.id, permissions: { reports: { read: true } } })
      expect((await s.api('GET', `/admin/api/users/${user.id}`)).body.permissions.reports).toEqual({ read: false, write: false })
      const changed = await call(client, 'update_user', { id: user.id, permissions: { reports: { read: true } }, confirm_token: asked.confirm_token })
      expect(changed.permissions.reports).toEqual({ read: true, write: false })
      const p = await preview(client, 'update_user', { id: user.id, password: 'second-password-2' })
      expect(p.preview.record).toEqual((await s.api('GET', `/admin/api/users/${user.id}`)).body)
      // Not yet changed: the old password still signs in.
      await s.login('tier2-user@example.com', 'first-password-1')
      await call(client, 'update_user', { id: user.id, password: 'second-password-2', confirm_token: p.confirm_token })
      await s.login('tier2-user@example.com', 'second-password-2')
      await expect(s.login('tier2-user@example.com', 'first-password-1')).rejects.toThrow('login failed: 401')
    })
    const text = (await s.api('GET', `/admin/api/audit?token_id=${all.id}&tool=update_user`)).text
    expect(text).not.toContain('second-password-2')
  })
})

describe('update_payment_account', () => {
  /** A pay-a account with both secrets, made through REST. */
  async function account(name: string): Promise<{ id: number }> {
    const res = await s.api('POST', '/admin/api/payment-accounts', { type: 'pay-a', name, webhook_secret: 'whsec_tier2_0123456789abcdef', api_key: 'sk_test_tier2_0123456789abcdef' })
    expect(res.status).toBe(201)
    return res.body
  }

  test('a rename acts at once; setting or clearing a secret is Tier 2; the new secret never reaches the audit log', async () => {
    const { id } = await account('Tier2 shop')
    const newKey = 'sk_test_agent_rotated_key_77aa'
    await withClient(s, all.token, async (client) => {
      expect(await call(client, 'update_payment_account', { id, name: 'Renamed shop' })).toMatchObject({ id, name: 'Renamed shop', has_api_key: true })
      const clear = await preview(client, 'update_payment_account', { id, api_key: null })
      expect((await s.api('GET', `/admin/api/payment-accounts/${id}`)).body.has_api_key).toBe(true)
      expect(await call(client, 'update_payment_account', { id, api_key: null, confirm_token: clear.confirm_token })).toMatchObject({ id, has_api_key: false })
      const set = await preview(client, 'update_payment_account', { id, api_key: newKey })
      expect((await s.api('GET', `/admin/api/payment-accounts/${id}`)).body.has_api_key).toBe(false)
      const done = await call(client, 'update_payment_account', { id, api_key: newKey, confirm_token: set.confirm_token })
      expect(done).toMatchObject({ id, has_api_key: true, has_webhook_secret: true })
      expect(JSON.stringify(done)).not.toContain(newKey)
    })
    const rows = await auditOf(s, { token_id: all.id, tool: 'update_payment_account' })
    expect(rows.slice(0, 2).map((r) => [r.outcome, r.arguments])).toEqual([
      ['ok', { id, api_key: '[redacted]', confirm_token: '[redacted]' }],
      ['confirmation_required', { id, api_key: '[redacted]' }],
    ])
    expect((await s.api('GET', '/admin/api/audit?limit=500')).text).not.toContain(newKey)
  })

  test('the preview shows the public record (has_api_key…), never the stored secrets, encrypted or not', async () => {
    const { id } = await account('Tier2 preview shop')
    const rest = (await s.api('GET', `/admin/api/payment-accounts/${id}`)).body
    await withClient(s, all.token, async (client) => {
      for (const [tool, args] of [['update_payment_account', { id, api_key: 'sk_test_other_0123456789' }], ['delete_payment_account', { id }]] as const) {
        const p = await preview(client, tool, args)
        const record = JSON.stringify(p.preview.record)
        expect({ tool, ciphertext: /"v1:/.test(record), fields: /"(apiKey|webhookSecret|clientSecret)"/.test(record) }).toEqual({ tool, ciphertext: false, fields: false })
        expect(p.preview).toEqual({ record: rest, arguments: args })
      }
    })
  })
})

describe('refund_order', () => {
  test('refunds once: the preview changes nothing, the confirmed call refunds all, a repeat replays it', async () => {
    const store = commerceStore(s.ctx.database as AnyDatabase)
    const order = await store.createOrder({ source: 'native', externalId: 'tier2-order-1', status: 'paid', currency: 'EUR', total: 10, email: null, clickId: null, now: Date.now() })
    const rest = (await s.api('GET', `/admin/api/orders/${order.id}`)).body
    expect(rest).toMatchObject({ id: order.id, total: 10, refunded: 0, status: 'paid' })
    await withClient(s, all.token, async (client) => {
      const p = await preview(client, 'refund_order', { id: order.id })
      // (The record is the order; its shape is pinned with the other previews under delete_campaign.)
      expect(p.preview.arguments).toEqual({ id: order.id })
      expect((p.preview.record as { id: number }).id).toBe(order.id)
      expect((await s.api('GET', `/admin/api/orders/${order.id}`)).body.refunded).toBe(0)
      const refund = await call(client, 'refund_order', { id: order.id, confirm_token: p.confirm_token })
      expect(refund).toEqual({ order_id: order.id, amount: 10, refunded_total: 10, status: 'refunded', conversion_id: null })
      expect(await call(client, 'refund_order', { id: order.id, confirm_token: p.confirm_token })).toEqual(refund)
      // A new confirmation is a new refund: nothing is left, which shows the repeat above did not run again.
      const second = await preview(client, 'refund_order', { id: order.id })
      expect(await callError(client, 'refund_order', { id: order.id, confirm_token: second.confirm_token })).toBe('invalid: amount: nothing is left to refund on this order')
    })
    expect((await s.api('GET', `/admin/api/orders/${order.id}`)).body).toMatchObject({ refunded: 10, status: 'refunded' })
    const refunds = (await s.api('GET', '/admin/api/refunds?limit=500')).body.items.filter((r: { order_id: number }) => r.order_id === order.id)
    expect(refunds).toHaveLength(1)
  })
})

describe('across a restart', () => {
  test('a confirmed call repeated after a restart replays its result and acts once; a preview from before the restart confirms after it', async () => {
    const first = await startServer()
    let second: TestServer | null = null
    try {
      const t = await createToken(first, { name: 'durable', scopes: ['all'] })
      const list = (await first.api('POST', '/admin/api/email-lists', { name: 'Durable' })).body.id
      for (const email of ['a1@example.com', 'a2@example.com', 'a3@example.com']) {
        expect((await first.api('POST', `/admin/api/email-lists/${list}/subscribers`, { email })).status).toBe(201)
      }
      const doomed = await seedCampaign(first, 'durable-doomed')
      const later = await seedCampaign(first, 'durable-later')
      const args = { id: list, subject: 'Once', text: 'Only once' }
      const { send, del, pending } = await withClient(first, t.token, async (client) => {
        const send = await preview(client, 'send_broadcast', args)
        expect(await call(client, 'send_broadcast', { ...args, confirm_token: send.confirm_token })).toEqual({ list_id: list, messages: 3, status: 'unsent' })
        const del = await preview(client, 'delete_campaign', { id: doomed.campaignId })
        expect(await call(client, 'delete_campaign', { id: doomed.campaignId, confirm_token: del.confirm_token })).toEqual({ ok: true })
        const pending = await preview(client, 'delete_campaign', { id: later.campaignId })
        return { send, del, pending }
      })
      await first.stop()

      second = await startServer({}, first.dataDir)
      await withClient(second, t.token, async (client) => {
        expect(await call(client, 'send_broadcast', { ...args, confirm_token: send.confirm_token })).toEqual({ list_id: list, messages: 3, status: 'unsent' })
        expect(await call(client, 'delete_campaign', { id: doomed.campaignId, confirm_token: del.confirm_token })).toEqual({ ok: true })
        expect((await second!.api('GET', `/admin/api/campaigns/${later.campaignId}`)).status).toBe(200)
        expect(await call(client, 'delete_campaign', { id: later.campaignId, confirm_token: pending.confirm_token })).toEqual({ ok: true })
      })
      const outbox = (await second.api('GET', `/admin/api/outbox?list_id=${list}`)).body.items
      expect(outbox).toHaveLength(3)
      expect((await second.api('GET', `/admin/api/campaigns/${later.campaignId}`)).status).toBe(404)
      expect((await auditOf(second, { token_id: t.id, outcome: 'replayed' })).map((r) => r.tool)).toEqual(['delete_campaign', 'send_broadcast'])
    } finally {
      if (second) await second.destroy()
      else await first.destroy()
    }
  })
})
