// Who may grant what (issue 25, finding 3), through the real surfaces on either engine (SVC_TEST_ENGINE=postgres):
// a person grants only the section actions they hold and manages only users within them; nobody changes their
// own permissions or owner flag; only an owner creates, promotes, changes or deletes an owner; an agent token
// grants only what both its scopes and its creator hold, and its user changes are Tier 2 (confirmed on /mcp,
// refused on REST).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SECTIONS } from '../../src/lib/permissions'
import { startServer, type TestServer } from '../helpers/server'
import { addUser, cookieFor, USER_PASSWORD } from '../admin/helpers'
import { call, callConfirmed, createToken, structured, TIER2_REST, toolError, withClient } from '../agent/helpers'

let s: TestServer
beforeAll(async () => { s = await startServer() })
afterAll(() => s.destroy())

const EVERY_SECTION = Object.fromEntries(SECTIONS.map((x) => [x, { read: true, write: true }]))
const USERS_AND_CAMPAIGNS_READ = { users: { read: true, write: true }, campaigns: { read: true, write: false } }
let seq = 0
const email = (tag: string) => `${tag}-${++seq}@example.com`

/** A signed-in non-owner holding `permissions`: its id and cookie. */
async function person(permissions: Record<string, { read?: boolean; write?: boolean }>) {
  const id = await addUser(s, email('person'), permissions)
  return { id, cookie: await cookieFor(s, id) }
}

const bearer = (method: string, path: string, token: string, body?: unknown) =>
  fetch(`${s.base}${path}`, {
    method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  }).then(async (r) => ({ status: r.status, body: await r.json() }))

describe('a person with users:write (REST, session cookie)', () => {
  test('creates users with at most the section actions they hold (403 naming the first one missing)', async () => {
    const admin = await person(USERS_AND_CAMPAIGNS_READ)
    const all = await s.api('POST', '/admin/api/users', { email: email('all'), password: USER_PASSWORD, permissions: EVERY_SECTION }, admin.cookie)
    expect(all).toMatchObject({ status: 403, body: { error: 'you cannot grant campaigns:write: you do not hold it' } })
    const settings = await s.api('POST', '/admin/api/users', { email: email('settings'), password: USER_PASSWORD, permissions: { settings: { write: true } } }, admin.cookie)
    expect(settings).toMatchObject({ status: 403, body: { error: 'you cannot grant settings:write: you do not hold it' } })
    const within = await s.api('POST', '/admin/api/users', { email: email('within'), password: USER_PASSWORD, permissions: { campaigns: { read: true }, users: { read: true } } }, admin.cookie)
    expect(within.status).toBe(201)
    expect(within.body.permissions.campaigns).toEqual({ read: true, write: false })
    // Nothing was created by the refused calls.
    const listed = (await s.api('GET', '/admin/api/users?limit=500')).body.items.map((u: { email: string }) => u.email)
    expect(listed.filter((e: string) => e.startsWith('all-') || e.startsWith('settings-'))).toEqual([])
  })

  test('cannot change their own permissions (adding settings:write) nor own owner flag; saving them unchanged passes', async () => {
    const admin = await person(USERS_AND_CAMPAIGNS_READ)
    const grow = await s.api('PATCH', `/admin/api/users/${admin.id}`, { permissions: { ...USERS_AND_CAMPAIGNS_READ, settings: { read: true, write: true } } }, admin.cookie)
    expect(grow).toMatchObject({ status: 403, body: { error: 'you cannot change your own permissions' } })
    const shrink = await s.api('PATCH', `/admin/api/users/${admin.id}`, { permissions: { users: { read: true, write: true } } }, admin.cookie)
    expect(shrink).toMatchObject({ status: 403, body: { error: 'you cannot change your own permissions' } })
    const promote = await s.api('PATCH', `/admin/api/users/${admin.id}`, { is_owner: true }, admin.cookie)
    expect(promote).toMatchObject({ status: 403, body: { error: 'only an owner can grant owner' } })
    // The dashboard's form sends the whole grid with an email change: the same permissions are no change.
    const same = await s.api('PATCH', `/admin/api/users/${admin.id}`, { permissions: USERS_AND_CAMPAIGNS_READ, email: email('renamed') }, admin.cookie)
    expect(same.status).toBe(200)
    expect(same.body.permissions.settings).toEqual({ read: false, write: false })
    // The owner cannot change their own owner flag either (nor, so, demote the last owner).
    expect(await s.api('PATCH', '/admin/api/users/1', { is_owner: false })).toMatchObject({ status: 403, body: { error: 'you cannot change your own owner flag' } })
  })

  test('cannot grant another user more than they hold, nor change or delete a user who holds more (password reset = sign in as them)', async () => {
    const admin = await person(USERS_AND_CAMPAIGNS_READ)
    const narrow = await addUser(s, email('narrow'), { campaigns: { read: true } })
    const wide = await addUser(s, email('wide'), { settings: { read: true, write: true } })
    expect(await s.api('PATCH', `/admin/api/users/${narrow}`, { permissions: { settings: { write: true } } }, admin.cookie))
      .toMatchObject({ status: 403, body: { error: 'you cannot grant settings:write: you do not hold it' } })
    expect(await s.api('PATCH', `/admin/api/users/${narrow}`, { permissions: { users: { read: true }, campaigns: { read: true } } }, admin.cookie))
      .toMatchObject({ status: 200, body: { permissions: { users: { read: true, write: false } } } })
    for (const change of [{ password: 'taken-over-123' }, { email: email('moved') }, { permissions: {} }]) {
      expect(await s.api('PATCH', `/admin/api/users/${wide}`, change, admin.cookie))
        .toMatchObject({ status: 403, body: { error: 'you cannot change a user who holds settings:read: you do not hold it' } })
    }
    expect(await s.api('DELETE', `/admin/api/users/${wide}`, undefined, admin.cookie))
      .toMatchObject({ status: 403, body: { error: 'you cannot delete a user who holds settings:read: you do not hold it' } })
    // The wide user is untouched: still signs in with the old password, same permissions.
    expect((await s.api('GET', `/admin/api/users/${wide}`)).body.permissions.settings).toEqual({ read: true, write: true })
    expect(await s.api('DELETE', `/admin/api/users/${narrow}`, undefined, admin.cookie)).toMatchObject({ status: 200, body: { ok: true } })
  })

  test('only an owner creates an owner, makes someone one, or changes or deletes one', async () => {
    const admin = await person(EVERY_SECTION)
    const plain = await addUser(s, email('plain'), {})
    expect(await s.api('POST', '/admin/api/users', { email: email('owner'), password: USER_PASSWORD, is_owner: true }, admin.cookie))
      .toMatchObject({ status: 403, body: { error: 'only an owner can create an owner' } })
    expect(await s.api('PATCH', `/admin/api/users/${plain}`, { is_owner: true }, admin.cookie))
      .toMatchObject({ status: 403, body: { error: 'only an owner can grant owner' } })
    expect(await s.api('PATCH', '/admin/api/users/1', { permissions: {} }, admin.cookie))
      .toMatchObject({ status: 403, body: { error: 'only an owner can change an owner' } })
    expect(await s.api('DELETE', '/admin/api/users/1', undefined, admin.cookie))
      .toMatchObject({ status: 403, body: { error: 'only an owner can delete an owner' } })
    // The owner may.
    const second = await s.api('POST', '/admin/api/users', { email: email('second-owner'), password: USER_PASSWORD, is_owner: true })
    expect(second).toMatchObject({ status: 201, body: { is_owner: true } })
    expect(await s.api('PATCH', `/admin/api/users/${plain}`, { is_owner: true })).toMatchObject({ status: 200, body: { is_owner: true } })
    expect(await s.api('PATCH', `/admin/api/users/${plain}`, { is_owner: false })).toMatchObject({ status: 200, body: { is_owner: false } })
    expect(await s.api('DELETE', `/admin/api/users/${second.body.id}`)).toMatchObject({ status: 200, body: { ok: true } })
  })

  test('mints tokens of at most the scopes they hold; jobs scopes only an owner grants', async () => {
    const admin = await person(USERS_AND_CAMPAIGNS_READ)
    expect(await s.api('POST', '/admin/api/tokens', { name: 'wide', scopes: ['settings:write'] }, admin.cookie))
      .toMatchObject({ status: 403, body: { error: 'you cannot grant settings:write: a token gets only scopes its creator holds' } })
    expect(await s.api('POST', '/admin/api/tokens', { name: 'jobs', scopes: ['jobs:read'] }, admin.cookie))
      .toMatchObject({ status: 403, body: { error: 'you cannot grant jobs:read: a token gets only scopes its creator holds' } })
    expect(await s.api('POST', '/admin/api/tokens', { name: 'ok', scopes: ['campaigns:read', 'users:write'] }, admin.cookie))
      .toMatchObject({ status: 201, body: { scopes: ['campaigns:read', 'users:write'], created_by: admin.id } })
  })
})

describe('an agent token (REST: Tier 2 refused; /mcp: confirmed, and bounded by its scopes and its creator)', () => {
  test('the finding: a users:read+users:write token cannot create a user with all 8 sections, nor log in as one with settings', async () => {
    const t = await createToken(s, { scopes: ['users:read', 'users:write'] })
    const body = { email: email('agent-made'), password: USER_PASSWORD, permissions: EVERY_SECTION }
    // REST: Tier 2, so not at all (the confirmation exists only on /mcp).
    expect(await bearer('POST', '/admin/api/users', t.token, body)).toEqual({ status: 403, body: { error: TIER2_REST('a user, permission or token change') } })
    await withClient(s, t.token, async (client) => {
      // The first call only previews; the confirmed one is refused for what the token does not hold.
      expect(toolError(await callConfirmed(client, 'create_user', body)))
        .toBe('forbidden: this token cannot grant campaigns:read: a token grants only what both its scopes and the user who created it hold')
      // users: the token holds both resources of section users (users and tokens) only for read/write it has.
      expect(toolError(await callConfirmed(client, 'create_user', { ...body, permissions: { users: { read: true } } })))
        .toBe('forbidden: this token cannot grant users:read: a token grants only what both its scopes and the user who created it hold')
      const plain = structured(await callConfirmed(client, 'create_user', { ...body, permissions: {} }))
      expect(plain).toMatchObject({ email: body.email, is_owner: false })
      expect(plain.permissions.settings).toEqual({ read: false, write: false })
    })
    // The user signs in and gets no settings.
    const cookie = await s.login(body.email, USER_PASSWORD)
    expect((await s.api('GET', '/admin/api/settings', undefined, cookie)).status).toBe(403)
  })

  test('a token of the owner holding every scope may grant every section (confirmed), but never owner', async () => {
    const t = await createToken(s, { scopes: ['all'] })
    await withClient(s, t.token, async (client) => {
      const u = structured(await callConfirmed(client, 'create_user', { email: email('full'), password: USER_PASSWORD, permissions: EVERY_SECTION }))
      expect(u.permissions).toEqual(EVERY_SECTION)
      expect(toolError(await callConfirmed(client, 'create_user', { email: email('owner-by-agent'), password: USER_PASSWORD, is_owner: true })))
        .toBe('forbidden: only an owner can create an owner')
      expect(toolError(await callConfirmed(client, 'update_user', { id: u.id, is_owner: true }))).toBe('forbidden: only an owner can grant owner')
      const owner2 = (await s.api('POST', '/admin/api/users', { email: email('owner2'), password: USER_PASSWORD, is_owner: true })).body
      expect(toolError(await callConfirmed(client, 'update_user', { id: owner2.id, password: 'taken-over-123' }))).toBe('forbidden: only an owner can change an owner')
      expect(toolError(await callConfirmed(client, 'delete_user', { id: owner2.id }))).toBe('forbidden: only an owner can delete an owner')
      // It acts for the owner who made it: that owner is "yourself".
      expect(toolError(await callConfirmed(client, 'delete_user', { id: 1 }))).toBe('conflict: you cannot delete yourself')
      // Without confirmation nothing happens: the first call is a preview.
      const p = await call(client, 'delete_user', { id: u.id })
      expect(p).toMatchObject({ confirmation_required: true, tool: 'delete_user', preview: { record: { id: u.id } } })
      expect((await s.api('GET', `/admin/api/users/${u.id}`)).status).toBe(200)
      expect(structured(await callConfirmed(client, 'delete_user', { id: u.id }))).toEqual({ ok: true })
    })
  })

  test('a token grants only what its creator holds too: a narrow person\'s token, and after the person loses a section', async () => {
    const maker = await person({ users: { read: true, write: true }, campaigns: { read: true, write: true } })
    const made = await s.api('POST', '/admin/api/tokens', { name: 'narrow maker', scopes: ['all'] }, maker.cookie)
    expect(made.status).toBe(201)
    await withClient(s, made.body.token, async (client) => {
      const args = { email: email('by-narrow'), password: USER_PASSWORD, permissions: { campaigns: { read: true, write: true } } }
      expect(structured(await callConfirmed(client, 'create_user', args)).permissions.campaigns).toEqual({ read: true, write: true })
      // The creator loses campaigns:write: the token keeps its scopes but can no longer hand that section on.
      expect((await s.api('PATCH', `/admin/api/users/${maker.id}`, { permissions: { users: { read: true, write: true }, campaigns: { read: true } } })).status).toBe(200)
      expect(toolError(await callConfirmed(client, 'create_user', { ...args, email: email('by-narrow') })))
        .toBe('forbidden: this token cannot grant campaigns:write: a token grants only what both its scopes and the user who created it hold')
      expect(toolError(await callConfirmed(client, 'create_token', { name: 'child', scopes: ['campaigns:write'] })))
        .toBe('forbidden: this token cannot grant campaigns:write: a token grants only scopes both it and the user who created it hold')
      // Acting for its creator, it cannot change the creator's own permissions either.
      expect(toolError(await callConfirmed(client, 'update_user', { id: maker.id, permissions: { users: { read: true, write: true }, campaigns: { read: true, write: true } } })))
        .toBe('forbidden: you cannot change your own permissions')
    })
  })

  test('a token made by a token is bounded by the same person: its grants never exceed theirs', async () => {
    const maker = await person({ users: { read: true, write: true }, reports: { read: true } })
    const parent = (await s.api('POST', '/admin/api/tokens', { name: 'parent', scopes: ['all'] }, maker.cookie)).body
    await withClient(s, parent.token, async (client) => {
      const child = structured(await callConfirmed(client, 'create_token', { name: 'child', scopes: ['all'] }))
      expect(child.created_by).toBe(maker.id)
      expect(child.scopes).toEqual(parent.scopes)
      await withClient(s, child.token, async (c2) => {
        expect(toolError(await callConfirmed(c2, 'create_user', { email: email('grandchild'), password: USER_PASSWORD, permissions: { settings: { read: true } } })))
          .toBe('forbidden: this token cannot grant settings:read: a token grants only what both its scopes and the user who created it hold')
        const ok = structured(await callConfirmed(c2, 'create_user', { email: email('grandchild'), password: USER_PASSWORD, permissions: { reports: { read: true } } }))
        expect(ok.permissions.reports).toEqual({ read: true, write: false })
      })
    })
  })

  test('a token whose creator was deleted grants nothing any more (it keeps working within its scopes)', async () => {
    const maker = await person({ users: { read: true, write: true }, reports: { read: true } })
    const made = (await s.api('POST', '/admin/api/tokens', { name: 'orphan', scopes: ['all'] }, maker.cookie)).body
    expect(await s.api('DELETE', `/admin/api/users/${maker.id}`)).toMatchObject({ status: 200 })
    await withClient(s, made.token, async (client) => {
      expect(await call(client, 'list_users', {})).toMatchObject({ items: expect.any(Array) })
      expect(toolError(await callConfirmed(client, 'create_user', { email: email('orphaned'), password: USER_PASSWORD, permissions: { reports: { read: true } } })))
        .toBe('forbidden: this token cannot grant reports:read: a token grants only what both its scopes and the user who created it hold')
      expect(toolError(await callConfirmed(client, 'create_token', { name: 'orphan child', scopes: ['reports:read'] })))
        .toBe('forbidden: this token cannot grant reports:read: a token grants only scopes both it and the user who created it hold')
    })
  })

  test('REST by a bearer token: every user write is refused as Tier 2; reads pass', async () => {
    const t = await createToken(s, { scopes: ['users:read', 'users:write'] })
    const target = await addUser(s, email('rest-target'), {})
    const refusal = { status: 403, body: { error: TIER2_REST('a user, permission or token change') } }
    expect(await bearer('PATCH', `/admin/api/users/${target}`, t.token, { permissions: {} })).toEqual(refusal)
    expect(await bearer('DELETE', `/admin/api/users/${target}`, t.token)).toEqual({ status: 403, body: { error: TIER2_REST('a deletion') } })
    expect((await bearer('GET', `/admin/api/users/${target}`, t.token)).status).toBe(200)
    expect((await s.api('GET', `/admin/api/users/${target}`)).status).toBe(200)
  })
})
