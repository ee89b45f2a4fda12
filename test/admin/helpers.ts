// Admin test helpers: users inserted straight into the database (cheap bcrypt hash; either engine, through
// testDb) and session cookies minted with the server's own signer, so tests do not spend the
// 5-per-15-minutes login budget.
import type { TestServer } from '../helpers/server'
import { testDb } from '../helpers/db'
import { SESSION_COOKIE } from '../../src/auth'
import type { Permissions } from '../../src/lib/permissions'

export const USER_PASSWORD = 'user-password-1'
let cheapHash: Promise<string> | null = null

/** Creates a non-owner user with exactly these permissions; returns its id. */
export async function addUser(s: TestServer, email: string, permissions: Permissions = {}, isOwner = false): Promise<number> {
  const hash = await (cheapHash ??= Bun.password.hash(USER_PASSWORD, { algorithm: 'bcrypt', cost: 4 }))
  const now = Date.now()
  const row = await testDb(s).get<{ id: number }>(
    'INSERT INTO users (email, password_hash, permissions, is_owner, session_epoch, created_at, updated_at) VALUES ($email, $hash, $p, $o, 0, $now, $now) RETURNING id',
    { email, hash, p: JSON.stringify(permissions), o: isOwner ? 1 : 0, now },
  )
  return Number(row!.id)
}

/** A valid Cookie header for the user, as login would have issued it (optionally already expired). */
export async function cookieFor(s: TestServer, userId: number, opts: { expired?: boolean } = {}): Promise<string> {
  // Read straight from the database like addUser writes: the current session_epoch is what the guard checks.
  const user = await testDb(s).get<{ id: number; session_epoch: number }>('SELECT id, session_epoch FROM users WHERE id = $id', { id: userId })
  if (!user) throw new Error(`no user ${userId}`)
  const ttl = s.ctx.sessions.ttlSeconds
  const now = opts.expired ? Date.now() - (ttl + 60) * 1000 : Date.now()
  return `${SESSION_COOKIE}=${s.ctx.sessions.sign(user.id, user.session_epoch, now).value}`
}

/** Raw request with full control over headers and body (s.api always sends JSON). */
export async function send(s: TestServer, method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) {
  const res = await fetch(`${s.base}${path}`, { method, headers: init.headers, body: init.body, redirect: 'manual' })
  const text = await res.text()
  let body: any
  try { body = JSON.parse(text) } catch { body = undefined }
  return { status: res.status, headers: res.headers, body, text }
}

/** A minimal catalog through the API: one source, offer, landing and a campaign using all three. */
export async function seedCatalog(s: TestServer, tag = 'a') {
  const source = (await s.api('POST', '/admin/api/sources', { name: `Source ${tag}`, postback_url: 'https://src.example/pb?cid={click_id}' })).body
  const offer = (await s.api('POST', '/admin/api/offers', { name: `Offer ${tag}`, slug: `offer-${tag}`, url: 'https://adv.example/?c={click_id}' })).body
  const landing = (await s.api('POST', '/admin/api/landings', { name: `Landing ${tag}`, slug: `landing-${tag}`, html: '<h1>hi</h1>' })).body
  const campaign = (await s.api('POST', '/admin/api/campaigns', {
    name: `Campaign ${tag}`, slug: `campaign-${tag}`, source_id: source.id, offer_id: offer.id, landing_id: landing.id,
  })).body
  return { source, offer, landing, campaign }
}
