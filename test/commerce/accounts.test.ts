// Native commerce over the admin API on a real server, on either engine (SVC_TEST_ENGINE=postgres runs it on
// Postgres): payment accounts (write-only secrets, encrypted at rest, never in any answer), products (their
// references and price rules), the read-only refunds and subscriptions (rows written with SQL, as the
// receivers would), PaymentAccounts (the decrypted reads the receivers use), and 401/403/404/409/400s.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { PaymentAccounts } from '../../src/commerce/accounts'
import { commerceCatalogStore } from '../../src/commerce/store/catalog'
import type { AnyDatabase } from '../../src/db/engine'
import { testDb, type TestDb } from '../helpers/db'
import { startServer, type TestServer } from '../helpers/server'
import { addUser, cookieFor } from '../admin/helpers'

let s: TestServer
let db: TestDb
let accounts: PaymentAccounts
let base: string
let owner: string
let reader: string
let noCommerce: string

const PAY_A_SECRET = 'whsec_TestSigningSecret_0001'
const PAY_A_KEY = 'sk_test_ApiKeyValue_0002'
const PAY_B_HOOK = 'WH-PAYB-WEBHOOK-ID-0003'
const PAY_B_CLIENT = 'client-id-AbCdEf-0004'
const PAY_B_CLIENT_SECRET = 'client-secret-GhIjKl-0005'
const ALL_SECRETS = [PAY_A_SECRET, PAY_A_KEY, PAY_B_HOOK, PAY_B_CLIENT, PAY_B_CLIENT_SECRET]
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const T0 = Date.UTC(2026, 3, 1, 9, 0)
const iso = (ms: number) => new Date(ms).toISOString()

interface Answer { status: number; body: any; text: string }

async function call(method: string, path: string, body?: unknown, cookie: string | null = owner): Promise<Answer> {
  const headers: Record<string, string> = {}
  if (cookie) headers.cookie = cookie
  if (body !== undefined || method !== 'GET') headers['content-type'] = 'application/json'
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  let parsed: unknown
  try { parsed = JSON.parse(text) } catch { parsed = undefined }
  return { status: res.status, body: parsed, text }
}

/** No answer ever carries a secret, in any spelling of the JSON. */
function noSecrets(a: Answer): void {
  for (const secret of ALL_SECRETS) expect(a.text).not.toContain(secret)
}

async function insertId(sql: string, params: Record<string, unknown>): Promise<number> {
  return Number((await db.get<{ id: number }>(`${sql} RETURNING id`, params))!.id)
}

beforeAll(async () => {
  s = await startServer()
  db = testDb(s)
  // The routes are the server's own (src/commerce/index.ts mounts commerceCatalogRoutes).
  expect((s.server.app.routes as Array<{ path: string }>).some((r) => r.path === '/admin/api/payment-accounts')).toBe(true)
  base = s.base
  accounts = new PaymentAccounts(commerceCatalogStore(s.ctx.database as AnyDatabase), s.ctx.box)
  owner = await s.login()
  reader = await cookieFor(s, await addUser(s, 'reader@example.com', { commerce: { read: true } }))
  noCommerce = await cookieFor(s, await addUser(s, 'emailer@example.com', { email: { read: true, write: true }, campaigns: { read: true, write: true } }))
}, 60_000)

afterAll(() => s?.destroy())

describe('payment accounts', () => {
  let a: any
  let b: any

  test('create pay-a: 201, generated account_id, has_* flags, no secret in the answer', async () => {
    const res = await call('POST', '/admin/api/payment-accounts', {
      type: 'pay-a', name: '  Main shop ', webhook_secret: PAY_A_SECRET, api_key: PAY_A_KEY, account_id: 'acct_chosenbyme22222222',
    })
    expect(res.status).toBe(201)
    noSecrets(res)
    a = res.body
    expect(a).toEqual({
      id: a.id, type: 'pay-a', name: 'Main shop', account_id: a.account_id, webhook_path: `/webhook/pay-a/${a.account_id}`,
      has_webhook_secret: true, has_api_key: true, has_client_credentials: false, webhook_registered_at: null,
      created_at: a.created_at, updated_at: a.created_at,
    })
    expect(a.account_id).toMatch(/^acct_[a-z2-7]{20}$/)
    expect(a.account_id).not.toBe('acct_chosenbyme22222222') // generated, whatever the body says
    expect(a.created_at).toMatch(ISO)
  })

  test('create pay-b with OAuth credentials; account ids differ', async () => {
    const res = await call('POST', '/admin/api/payment-accounts', {
      type: 'pay-b', name: 'PayB', webhook_secret: PAY_B_HOOK, client_id: PAY_B_CLIENT, client_secret: PAY_B_CLIENT_SECRET,
    })
    expect(res.status).toBe(201)
    noSecrets(res)
    b = res.body
    expect(b).toMatchObject({ type: 'pay-b', name: 'PayB', has_webhook_secret: true, has_api_key: false, has_client_credentials: true })
    expect(b.account_id).toMatch(/^acct_[a-z2-7]{20}$/)
    expect(b.account_id).not.toBe(a.account_id)
  })

  test('secrets are encrypted at rest, under the server\'s SecretBox', async () => {
    const row = await db.get('SELECT webhook_secret, api_key, client_id, client_secret FROM payment_accounts WHERE id = $id', { id: a.id })
    expect(row.client_id).toBeNull()
    expect(row.client_secret).toBeNull()
    for (const [stored, plain] of [[row.webhook_secret, PAY_A_SECRET], [row.api_key, PAY_A_KEY]] as const) {
      expect(stored).toStartWith('v1:')
      expect(stored).not.toContain(plain)
      expect(s.ctx.box.decrypt(stored)).toBe(plain)
    }
    const rowB = await db.get('SELECT * FROM payment_accounts WHERE id = $id', { id: b.id })
    expect(JSON.stringify(rowB)).not.toContain(PAY_B_CLIENT)
    expect(JSON.stringify(rowB)).not.toContain(PAY_B_CLIENT_SECRET)
    expect(JSON.stringify(rowB)).not.toContain(PAY_B_HOOK)
    expect(rowB.api_key).toBeNull()
  })

  test('get and list: the same records, no secrets, cursor paging', async () => {
    const one = await call('GET', `/admin/api/payment-accounts/${a.id}`)
    expect(one.status).toBe(200)
    expect(one.body).toEqual(a)
    noSecrets(one)
    const list = await call('GET', '/admin/api/payment-accounts')
    expect(list.status).toBe(200)
    expect(list.body).toEqual({ items: [a, b], next_cursor: null })
    noSecrets(list)
    const first = await call('GET', '/admin/api/payment-accounts?limit=1')
    expect(first.body).toEqual({ items: [a], next_cursor: String(a.id) })
    const second = await call('GET', `/admin/api/payment-accounts?limit=1&cursor=${first.body.next_cursor}`)
    expect(second.body).toEqual({ items: [b], next_cursor: null })
    expect((await call('GET', '/admin/api/payment-accounts?limit=0')).status).toBe(400)
  })

  test('PATCH: name and secrets change, null clears, the flags follow; no secret in the answer', async () => {
    const renamed = await call('PATCH', `/admin/api/payment-accounts/${a.id}`, { name: 'Renamed', type: 'pay-a', account_id: a.account_id })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toEqual({ ...a, name: 'Renamed', updated_at: renamed.body.updated_at })
    const cleared = await call('PATCH', `/admin/api/payment-accounts/${a.id}`, { api_key: null })
    expect(cleared.body).toMatchObject({ has_api_key: false, has_webhook_secret: true })
    expect((await db.get('SELECT api_key FROM payment_accounts WHERE id = $id', { id: a.id })).api_key).toBeNull()
    const set = await call('PATCH', `/admin/api/payment-accounts/${a.id}`, { api_key: PAY_A_KEY })
    expect(set.body).toMatchObject({ has_api_key: true })
    noSecrets(set)
    const bCleared = await call('PATCH', `/admin/api/payment-accounts/${b.id}`, { client_secret: null })
    expect(bCleared.body).toMatchObject({ has_client_credentials: false })
    const bSet = await call('PATCH', `/admin/api/payment-accounts/${b.id}`, { client_secret: PAY_B_CLIENT_SECRET })
    expect(bSet.body).toMatchObject({ has_client_credentials: true })
    noSecrets(bSet)
    a = (await call('GET', `/admin/api/payment-accounts/${a.id}`)).body
  })

  test('400s name the field', async () => {
    const post = (body: unknown) => call('POST', '/admin/api/payment-accounts', body)
    const patchA = (body: unknown) => call('PATCH', `/admin/api/payment-accounts/${a.id}`, body)
    const patchB = (body: unknown) => call('PATCH', `/admin/api/payment-accounts/${b.id}`, body)
    const cases: Array<[Promise<Answer>, string]> = [
      [post({ name: 'x' }), 'type'],
      [post({ type: 'pay-c', name: 'x' }), 'type: must be one of pay-a, pay-b'],
      [post({ type: 'pay-a' }), 'name'],
      [post({ type: 'pay-a', name: '   ' }), 'name: must be a non-empty string'],
      [post({ type: 'pay-a', name: 'x'.repeat(201) }), 'name'],
      [post({ type: 'pay-a', name: 'x', webhook_secret: '' }), 'webhook_secret: must not be empty (null clears it)'],
      [post({ type: 'pay-a', name: 'x', api_key: 'k'.repeat(501) }), 'api_key: must be at most 500 characters'],
      [post({ type: 'pay-a', name: 'x', api_key: 'sk_live\nX-Injected: 1' }), 'api_key: must not contain control characters'],
      [post({ type: 'pay-a', name: 'x', webhook_secret: 'a\u0000b' }), 'webhook_secret: must not contain control characters'],
      [post({ type: 'pay-a', name: 'x', webhook_secret: 42 }), 'webhook_secret'],
      [post({ type: 'pay-a', name: 'x', client_id: 'cid' }), 'client_id: only for pay-b accounts'],
      [post({ type: 'pay-b', name: 'x', api_key: 'k' }), 'api_key: only for pay-a accounts'],
      [patchA({ type: 'pay-b' }), 'type: cannot be changed; create another payment account'],
      [patchA({ account_id: 'acct_aaaaaaaaaaaaaaaaaaaa' }), 'account_id: is generated and cannot be changed'],
      [patchA({ webhook_secret: '' }), 'webhook_secret: must not be empty (null clears it)'],
      [patchA({ client_secret: 'x' }), 'client_secret: only for pay-b accounts'],
      [patchA({ name: '' }), 'name: must be a non-empty string'],
      [patchB({ client_id: '   ' }), 'client_id: must not be empty (null clears it)'],
      [patchB({ api_key: 'sk' }), 'api_key: only for pay-a accounts'],
    ]
    for (const [pending, error] of cases) {
      const res = await pending
      expect({ status: res.status, error: res.body?.error?.startsWith(error) ? error : res.body?.error }).toEqual({ status: 400, error })
    }
    // Nothing was written by any of them.
    expect((await call('GET', '/admin/api/payment-accounts')).body.items).toEqual([a, (await call('GET', `/admin/api/payment-accounts/${b.id}`)).body])
    expect((await db.get('SELECT count(*) AS n FROM payment_accounts')).n).toBe(2)
  })

  test('404 for an unknown id, on every verb', async () => {
    for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'x' }], ['DELETE', undefined]] as const) {
      for (const id of ['999999', 'abc', '0']) {
        const res = await call(method, `/admin/api/payment-accounts/${id}`, body)
        expect({ method, id, status: res.status, body: res.body }).toEqual({ method, id, status: 404, body: { error: 'payment account not found' } })
      }
    }
  })

  test('PaymentAccounts: decrypted reads by account id and id; webhook registration', async () => {
    const byAccount = await accounts.byAccountId(a.account_id)
    expect(byAccount).toEqual({
      id: a.id, type: 'pay-a', name: 'Renamed', accountId: a.account_id, webhookSecret: PAY_A_SECRET, apiKey: PAY_A_KEY,
      clientId: null, clientSecret: null, webhookRegisteredAt: null,
    })
    expect(await accounts.byId(b.id)).toEqual({
      id: b.id, type: 'pay-b', name: 'PayB', accountId: b.account_id, webhookSecret: PAY_B_HOOK, apiKey: null,
      clientId: PAY_B_CLIENT, clientSecret: PAY_B_CLIENT_SECRET, webhookRegisteredAt: null,
    })
    expect(await accounts.byAccountId('acct_unknownunknownunkn')).toBeUndefined()
    expect(await accounts.byAccountId("acct_' OR 1=1 --")).toBeUndefined()
    expect(await accounts.byAccountId('')).toBeUndefined()
    expect(await accounts.byId(999_999)).toBeUndefined()
    expect(await accounts.registeredPayA()).toEqual([])

    const secret = 'whsec_RegisteredByCheckout_0006'
    await accounts.markWebhookRegistered(a.id, secret, T0)
    // pay-b accounts are never among the registered pay-a ones.
    await accounts.markWebhookRegistered(b.id, PAY_B_HOOK, T0)
    expect(await accounts.registeredPayA()).toEqual([{ ...byAccount!, webhookSecret: secret, webhookRegisteredAt: T0 }])
    const stored = await db.get('SELECT webhook_secret FROM payment_accounts WHERE id = $id', { id: a.id })
    expect(stored.webhook_secret).not.toContain(secret)
    const shown = await call('GET', `/admin/api/payment-accounts/${a.id}`)
    expect(shown.body).toMatchObject({ webhook_registered_at: iso(T0), has_webhook_secret: true })
    expect(shown.text).not.toContain(secret)

    // Clearing the secret forgets the registration too: the checkout registers the endpoint afresh.
    const cleared = await call('PATCH', `/admin/api/payment-accounts/${a.id}`, { webhook_secret: null })
    expect(cleared.body).toMatchObject({ has_webhook_secret: false, webhook_registered_at: null })
    expect(await accounts.registeredPayA()).toEqual([])
    expect((await accounts.byId(a.id))!.webhookSecret).toBeNull()
    await call('PATCH', `/admin/api/payment-accounts/${a.id}`, { webhook_secret: PAY_A_SECRET })
  })
})

describe('products', () => {
  let offerId: number
  let listId: number
  let accountId: number
  let p: any

  beforeAll(async () => {
    offerId = await insertId(`INSERT INTO offers (name, slug, url, payout, currency, created_at, updated_at)
      VALUES ('Offer', 'commerce-offer', 'https://adv.example/', 0, 'USD', $t, $t)`, { t: T0 })
    listId = await insertId('INSERT INTO email_lists (name, created_at, updated_at) VALUES ($n, $t, $t)', { n: 'Buyers', t: T0 })
    accountId = (await call('POST', '/admin/api/payment-accounts', { type: 'pay-a', name: 'For products' })).body.id
  })

  test('create: defaults (USD, active), references, 201', async () => {
    const res = await call('POST', '/admin/api/products', {
      name: 'E-book', price: 19.99, currency: 'eur', offer_id: offerId, email_list_id: listId, payment_account_id: accountId,
    })
    expect(res.status).toBe(201)
    p = res.body
    expect(p).toEqual({
      id: p.id, name: 'E-book', price: 19.99, currency: 'EUR', offer_id: offerId, email_list_id: listId, payment_account_id: accountId,
      active: true, created_at: p.created_at, updated_at: p.created_at,
    })
    const bare = await call('POST', '/admin/api/products', { name: 'Tip jar', price: 0.00000001 })
    expect(bare.status).toBe(201)
    expect(bare.body).toMatchObject({ price: 0.00000001, currency: 'USD', offer_id: null, email_list_id: null, payment_account_id: null, active: true })
    expect((await call('GET', `/admin/api/products/${p.id}`)).body).toEqual(p)
    const list = await call('GET', '/admin/api/products')
    expect(list.body).toEqual({ items: [p, bare.body], next_cursor: null })
    expect((await call('DELETE', `/admin/api/products/${bare.body.id}`)).body).toEqual({ ok: true })
  })

  test('400s name the field (price rules, currency, missing references)', async () => {
    const post = (body: Record<string, unknown>) => call('POST', '/admin/api/products', { name: 'x', price: 1, ...body })
    const cases: Array<[Promise<Answer>, string]> = [
      [call('POST', '/admin/api/products', { price: 1 }), 'name'],
      [call('POST', '/admin/api/products', { name: 'x' }), 'price'],
      [post({ price: 0 }), 'price: must be greater than 0'],
      [post({ price: -5 }), 'price: must be greater than 0'],
      [post({ price: 1e9 + 1 }), 'price: must be at most 1000000000'],
      [post({ price: 1.123456789 }), 'price: at most 8 decimals'],
      [post({ price: '10' }), 'price'],
      [post({ currency: 'EURO' }), 'currency'],
      [post({ currency: 'E1R' }), 'currency: must be an ISO 4217 currency code such as USD'],
      [post({ offer_id: 999_999 }), 'offer_id: offer 999999 does not exist'],
      [post({ email_list_id: 999_999 }), 'email_list_id: email list 999999 does not exist'],
      [post({ payment_account_id: 99_999_999_999 }), 'payment_account_id: payment account 99999999999 does not exist'],
      [post({ offer_id: 0 }), 'offer_id'],
      [post({ active: 'yes' }), 'active'],
      [call('PATCH', `/admin/api/products/${p.id}`, { price: 0 }), 'price: must be greater than 0'],
      [call('PATCH', `/admin/api/products/${p.id}`, { email_list_id: 424_242 }), 'email_list_id: email list 424242 does not exist'],
    ]
    for (const [pending, error] of cases) {
      const res = await pending
      expect({ status: res.status, error: res.body?.error?.startsWith(error) ? error : res.body?.error }).toEqual({ status: 400, error })
    }
    expect((await call('GET', '/admin/api/products')).body.items).toEqual([p])
  })

  test('PATCH changes what it names; null clears a reference', async () => {
    const res = await call('PATCH', `/admin/api/products/${p.id}`, { active: false, offer_id: null, price: 1_000_000_000 })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ ...p, active: false, offer_id: null, price: 1e9, updated_at: res.body.updated_at })
    p = res.body
    expect((await call('GET', `/admin/api/products/${p.id}`)).body).toEqual(p)
  })

  test('404 for an unknown product', async () => {
    for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'x' }], ['DELETE', undefined]] as const) {
      const res = await call(method, '/admin/api/products/999999', body)
      expect({ method, status: res.status, body: res.body }).toEqual({ method, status: 404, body: { error: 'product not found' } })
    }
  })

  test('409: a payment account a product uses cannot be deleted (the product is named); then it can', async () => {
    const res = await call('DELETE', `/admin/api/payment-accounts/${accountId}`)
    expect(res.status).toBe(409)
    expect(res.body).toEqual({ error: `payment account is used by product "E-book" (id ${p.id})` })
    expect((await call('PATCH', `/admin/api/products/${p.id}`, { payment_account_id: null })).status).toBe(200)
    expect((await call('DELETE', `/admin/api/payment-accounts/${accountId}`)).body).toEqual({ ok: true })
    expect((await call('GET', `/admin/api/payment-accounts/${accountId}`)).status).toBe(404)
  })

  test('409: a product with orders stays (active=false instead); without, it goes', async () => {
    await db.run(`INSERT INTO orders (source, external_id, status, total, refunded, product_id, created_at, updated_at)
      VALUES ('native', 'ord-1', 'paid', 19.99, 0, $p, $t, $t)`, { p: p.id, t: T0 })
    const res = await call('DELETE', `/admin/api/products/${p.id}`)
    expect({ status: res.status, body: res.body }).toEqual({ status: 409, body: { error: 'product has orders; set active=false instead' } })
    const q = (await call('POST', '/admin/api/products', { name: 'Gone', price: 5 })).body
    expect((await call('DELETE', `/admin/api/products/${q.id}`)).body).toEqual({ ok: true })
    expect((await call('GET', `/admin/api/products/${q.id}`)).status).toBe(404)
  })
})

describe('refunds and subscriptions (read-only)', () => {
  let o1: number, o2: number
  let r1: number, r2: number, r3: number
  let s1: number, s2: number

  beforeAll(async () => {
    const order = (ext: string, source: string) => insertId(`INSERT INTO orders (source, external_id, status, total, refunded, email, created_at, updated_at)
      VALUES ($source, $ext, 'paid', 40, 0, 'ann@example.com', $t, $t)`, { source, ext, t: T0 })
    o1 = await order('ch_1', 'pay-a')
    o2 = await order('1001', 'ecom-a')
    const refund = (orderId: number, source: string, ext: string, amount: number, t: number, conversionId: number | null) => insertId(
      `INSERT INTO refunds (order_id, source, external_id, amount, currency, conversion_id, created_at)
       VALUES ($orderId, $source, $ext, $amount, 'EUR', $conversionId, $t)`, { orderId, source, ext, amount, t, conversionId })
    r1 = await refund(o1, 'pay-a', 're_1', 10, T0 + 1000, 77)
    r2 = await refund(o2, 'ecom-a', 'rf_9', 2.5, T0 + 2000, null)
    r3 = await refund(o1, 'pay-a', 're_2', 5.25, T0 + 3000, null)
    const sub = (over: Record<string, unknown>) => insertId(
      `INSERT INTO subscriptions (source, external_id, payment_account_id, customer_external_id, email, status, click_id, product_id,
         current_period_end, canceled_at, created_at, updated_at)
       VALUES ($source, $ext, $pa, $cust, $email, $status, $click, $product, $end, $canceled, $t, $u)`,
      { source: 'pay-a', ext: 'sub_1', pa: 7, cust: 'cus_1', email: 'ann@example.com', status: 'active', click: '6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e01',
        product: 3, end: T0 + 30 * 86_400_000, canceled: null, t: T0, u: T0 + 5, ...over })
    s1 = await sub({})
    s2 = await sub({ source: 'pay-b', ext: 'I-BW452GLLEP1G', pa: null, cust: null, email: 'bob@example.com', status: 'CANCELLED', click: null,
      product: null, end: null, canceled: T0 + 9000 })
  })

  test('refunds: newest first, filters, cursor, get, 404, 400', async () => {
    const list = await call('GET', '/admin/api/refunds')
    expect(list.status).toBe(200)
    expect(list.body.items.map((r: any) => r.id)).toEqual([r3, r2, r1])
    expect(list.body.next_cursor).toBeNull()
    expect(list.body.items[2]).toEqual({
      id: r1, order_id: o1, source: 'pay-a', external_id: 're_1', amount: 10, currency: 'EUR', conversion_id: 77, created_at: iso(T0 + 1000),
    })
    expect((await call('GET', `/admin/api/refunds?order_id=${o1}`)).body.items.map((r: any) => r.id)).toEqual([r3, r1])
    expect((await call('GET', '/admin/api/refunds?source=ecom-a')).body.items.map((r: any) => r.id)).toEqual([r2])
    const page1 = await call('GET', '/admin/api/refunds?limit=2')
    expect(page1.body).toMatchObject({ next_cursor: String(r2) })
    expect(page1.body.items.map((r: any) => r.id)).toEqual([r3, r2])
    const page2 = await call('GET', `/admin/api/refunds?limit=2&cursor=${page1.body.next_cursor}`)
    expect(page2.body.items.map((r: any) => r.id)).toEqual([r1])
    expect(page2.body.next_cursor).toBeNull()
    expect((await call('GET', `/admin/api/refunds/${r2}`)).body).toEqual(list.body.items[1])
    for (const id of ['999999', 'x']) expect(await call('GET', `/admin/api/refunds/${id}`)).toMatchObject({ status: 404, body: { error: 'refund not found' } })
    expect(await call('GET', '/admin/api/refunds?order_id=abc')).toMatchObject({ status: 400, body: { error: 'order_id: must be a positive integer' } })
    expect((await call('GET', '/admin/api/refunds?source=bogus')).body.error).toStartWith('source: must be one of')
    expect((await call('GET', '/admin/api/refunds?cursor=x')).status).toBe(400)
  })

  test('subscriptions: newest first, filters, get, 404, 400', async () => {
    const list = await call('GET', '/admin/api/subscriptions')
    expect(list.status).toBe(200)
    expect(list.body).toEqual({
      items: [
        {
          id: s2, source: 'pay-b', external_id: 'I-BW452GLLEP1G', payment_account_id: null, customer_external_id: null, email: 'bob@example.com',
          status: 'CANCELLED', click_id: null, product_id: null, current_period_end: null, canceled_at: iso(T0 + 9000),
          created_at: iso(T0), updated_at: iso(T0 + 5),
        },
        {
          id: s1, source: 'pay-a', external_id: 'sub_1', payment_account_id: 7, customer_external_id: 'cus_1', email: 'ann@example.com',
          status: 'active', click_id: '6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e01', product_id: 3, current_period_end: iso(T0 + 30 * 86_400_000),
          canceled_at: null, created_at: iso(T0), updated_at: iso(T0 + 5),
        },
      ],
      next_cursor: null,
    })
    const ids = async (q: string) => (await call('GET', `/admin/api/subscriptions?${q}`)).body.items.map((r: any) => r.id)
    expect(await ids('source=pay-a')).toEqual([s1])
    expect(await ids('status=CANCELLED')).toEqual([s2])
    expect(await ids('email=ann@example.com')).toEqual([s1])
    expect(await ids('email=nobody@example.com')).toEqual([])
    expect(await ids('limit=1&cursor=' + s2)).toEqual([s1])
    expect((await call('GET', `/admin/api/subscriptions/${s1}`)).body).toEqual(list.body.items[1])
    expect(await call('GET', '/admin/api/subscriptions/999999')).toMatchObject({ status: 404, body: { error: 'subscription not found' } })
    expect((await call('GET', '/admin/api/subscriptions?source=nope')).body.error).toStartWith('source: must be one of')
    expect(await call('GET', `/admin/api/subscriptions?email=${'a'.repeat(300)}`)).toMatchObject({ status: 400, body: { error: 'email: at most 255 characters' } })
  })

  test('the store\'s customer reads: subscriptions and orders of one address, newest first', async () => {
    const store = commerceCatalogStore(s.ctx.database as AnyDatabase)
    expect((await store.subscriptionsOfEmail('ann@example.com')).map((r) => r.id)).toEqual([s1])
    expect((await store.ordersOfEmail('ann@example.com')).map((r) => r.id)).toEqual([o2, o1])
  })
})

describe('access', () => {
  const routes: Array<[string, string, unknown?]> = [
    ['GET', '/admin/api/payment-accounts'], ['POST', '/admin/api/payment-accounts', { type: 'pay-a', name: 'x' }],
    ['GET', '/admin/api/payment-accounts/1'], ['PATCH', '/admin/api/payment-accounts/1', { name: 'x' }], ['DELETE', '/admin/api/payment-accounts/1'],
    ['GET', '/admin/api/products'], ['POST', '/admin/api/products', { name: 'x', price: 1 }],
    ['GET', '/admin/api/products/1'], ['PATCH', '/admin/api/products/1', { name: 'x' }], ['DELETE', '/admin/api/products/1'],
    ['GET', '/admin/api/refunds'], ['GET', '/admin/api/refunds/1'], ['GET', '/admin/api/subscriptions'], ['GET', '/admin/api/subscriptions/1'],
  ]

  test('401 for a stranger, 403 without the commerce section, 403 for writes with read only', async () => {
    for (const [method, path, body] of routes) {
      const stranger = await call(method, path, body, null)
      expect({ method, path, status: stranger.status, body: stranger.body }).toEqual({ method, path, status: 401, body: { error: 'not authenticated' } })
      const other = await call(method, path, body, noCommerce)
      expect({ method, path, status: other.status }).toEqual({ method, path, status: 403 })
      expect(other.body.error).toContain('commerce')
      const ro = await call(method, path, body, reader)
      if (method === 'GET') expect({ method, path, ok: ro.status !== 401 && ro.status !== 403 }).toEqual({ method, path, ok: true })
      else expect({ method, path, status: ro.status }).toEqual({ method, path, status: 403 })
    }
  })

  test('a reader sees accounts without secrets too', async () => {
    const res = await call('GET', '/admin/api/payment-accounts', undefined, reader)
    expect(res.status).toBe(200)
    expect(res.body.items.length).toBeGreaterThan(0)
    noSecrets(res)
  })
})
