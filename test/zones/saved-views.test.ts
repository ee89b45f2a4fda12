// Issue 30 (docs/zones.md): saved views through the admin API, on either engine: any signed-in user keeps
// named screen states of their own; another user neither sees nor deletes them; a name taken on a screen is a
// 409; the field-named 400s.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
let alice: string // reports only
let bob: string // no permission at all: saved views need none

beforeAll(async () => {
  s = await startServer()
  for (const [email, permissions] of [['alice@example.com', { reports: { read: true } }], ['bob@example.com', {}]] as const) {
    expect((await s.api('POST', '/admin/api/users', { email, password: 'long-enough-pass-1', permissions })).status).toBe(201)
  }
  alice = await s.login('alice@example.com', 'long-enough-pass-1')
  bob = await s.login('bob@example.com', 'long-enough-pass-1')
})
afterAll(() => s.destroy())

const save = (cookie: string, body: Record<string, unknown>) => s.api('POST', '/admin/api/saved-views', body, cookie)
const views = async (cookie: string, q = '') => (await s.api('GET', `/admin/api/saved-views${q}`, undefined, cookie))

describe('saved views', () => {
  test('each user sees only their own; a screen filter', async () => {
    const a = await save(alice, { screen: 'reports', name: 'Losing zones', state: 'group_by=sub3&having=profit%3C0&period=7d' })
    expect(a.status).toBe(201)
    expect(a.body).toMatchObject({ screen: 'reports', name: 'Losing zones', state: 'group_by=sub3&having=profit%3C0&period=7d' })
    expect(new Date(a.body.created_at).toISOString()).toBe(a.body.created_at)
    expect((await save(alice, { screen: 'campaigns', name: 'Today', state: '?period=today' })).body.state).toBe('period=today')
    // Bob may use the same name: names are per user.
    expect((await save(bob, { screen: 'reports', name: 'Losing zones', state: 'group_by=sub1' })).status).toBe(201)

    const mine = await views(alice, '?screen=reports')
    expect(mine.status).toBe(200)
    expect(mine.body.items.map((v: any) => [v.name, v.state])).toEqual([['Losing zones', 'group_by=sub3&having=profit%3C0&period=7d']])
    expect((await views(alice)).body.items.map((v: any) => v.screen)).toEqual(['campaigns', 'reports'])
    expect((await views(bob)).body.items.map((v: any) => v.state)).toEqual(['group_by=sub1'])
  })

  test('a name taken on that screen is a 409; the same name on another screen is not', async () => {
    const dup = await save(alice, { screen: 'reports', name: ' Losing zones ', state: 'x=1' })
    expect(dup.status).toBe(409)
    expect(dup.body.error).toMatch(/^name: /)
    expect((await save(alice, { screen: 'click', name: 'Losing zones', state: 'x=1' })).status).toBe(201)
  })

  test('delete: own only (another user gets 404 and the view stays)', async () => {
    const id = (await views(alice, '?screen=reports')).body.items[0].id
    expect((await s.api('DELETE', `/admin/api/saved-views/${id}`, undefined, bob)).status).toBe(404)
    expect((await views(alice, '?screen=reports')).body.items).toHaveLength(1)
    expect((await s.api('DELETE', `/admin/api/saved-views/${id}`, undefined, alice)).status).toBe(204)
    expect((await views(alice, '?screen=reports')).body.items).toHaveLength(0)
    expect((await s.api('DELETE', `/admin/api/saved-views/${id}`, undefined, alice)).status).toBe(404)
  })

  test('400s name the field; signed out is a 401', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ screen: 'reports', name: 'x', state: 'a'.repeat(2001) }, /^state: /],
      [{ screen: 'reports', name: '', state: '' }, /^name: /],
      [{ screen: 'reports', name: 'n'.repeat(101), state: '' }, /^name: /],
      [{ screen: 'Reports!', name: 'x', state: '' }, /^screen: /],
      [{ name: 'x', state: '' }, /^screen: /],
      [{ screen: 'reports', name: 'x' }, /^state: /],
    ]
    for (const [body, error] of cases) {
      const res = await save(alice, body)
      expect({ body, status: res.status }).toEqual({ body, status: 400 })
      expect(res.body.error).toMatch(error)
    }
    expect((await save(alice, { screen: 'reports', name: 'long', state: 'a'.repeat(2000) })).status).toBe(201)
    expect((await views('')).status).toBe(401)
    expect((await s.api('DELETE', '/admin/api/saved-views/abc', undefined, alice)).status).toBe(400)
  })
})
