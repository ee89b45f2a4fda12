// The admin guard awaits the users store (findById is async since issue 8). Over real Elysia routes on
// both engines: a valid cookie passes, a revoked, forged or deleted user's cookie is 401 before the body
// is read (POST) or the handler runs (GET), a missing permission is 403.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import { adminGuard } from '../../src/http/admin-guard'
import { errorHandler } from '../../src/http/errors'
import { SessionSigner, SESSION_COOKIE } from '../../src/auth'
import { UserStore } from '../../src/users/store'
import type { AppContext } from '../../src/context'
import { AgentGate } from '../../src/agent/gate'
import { agentStore } from '../../src/agent/store'
import { ENGINES, openFresh, type OpenedDb } from './pg-engines'

setDefaultTimeout(30_000)

for (const engine of ENGINES) {
  describe.skipIf(engine.skip)(`admin guard over the ${engine.name} users store`, () => {
    let opened: OpenedDb
    let users: UserStore
    let app: { handle(r: Request): Promise<Response> }
    const sessions = new SessionSigner('g'.repeat(40), 3600)
    let handled = 0
    let ownerId = 0
    let readerId = 0

    const cookie = (id: number, epoch: number) => `${SESSION_COOKIE}=${sessions.sign(id, epoch).value}`
    const get = (c: string) => app.handle(new Request('http://svc.test/admin/api/thing', { headers: { cookie: c } }))
    const post = (c: string, body = '{"name":"x"}') => app.handle(new Request('http://svc.test/admin/api/thing', {
      method: 'POST', headers: { cookie: c, 'content-type': 'application/json' }, body,
    }))

    beforeAll(async () => {
      opened = await openFresh(engine.name)
      users = new UserStore(opened.db)
      ownerId = (await users.create({ email: 'owner@example.com', password: 'owner-password', isOwner: true })).id
      readerId = (await users.create({ email: 'reader@example.com', password: 'reader-password', permissions: { users: { read: true, write: false } } })).id
      // The real agent gate over the same database (the guard asks it about bearer tokens and audits their calls).
      const ctx = { sessions, users, agents: new AgentGate(agentStore(opened.db)) } as unknown as AppContext
      app = new Elysia()
        .use(errorHandler)
        .use(adminGuard(ctx))
        .get('/admin/api/thing', ({ admin }) => { handled++; return { id: admin.id } }, { permission: 'users:read' })
        .post('/admin/api/thing', ({ admin, body }) => { handled++; return { id: admin.id, name: body.name } }, {
          permission: 'users:write', body: t.Object({ name: t.String() }),
        })
        .get('/admin/api/me', ({ admin }) => ({ id: admin.id, epoch: admin.sessionEpoch }), { admin: true })
    })
    afterAll(async () => { await opened?.close() })

    test('a valid cookie reaches the handler with the signed-in user', async () => {
      expect(await (await get(cookie(ownerId, 0))).json()).toEqual({ id: ownerId })
      expect(await (await post(cookie(ownerId, 0))).json()).toEqual({ id: ownerId, name: 'x' })
      expect(await (await app.handle(new Request('http://svc.test/admin/api/me', { headers: { cookie: cookie(readerId, 0) } }))).json())
        .toEqual({ id: readerId, epoch: 0 })
    })

    test('a missing permission is 403, also before a bad body is looked at', async () => {
      expect((await get(cookie(readerId, 0))).status).toBe(200)
      const before = handled
      expect((await post(cookie(readerId, 0))).status).toBe(403)
      expect((await post(cookie(readerId, 0), '{"wrong":1}')).status).toBe(403)
      expect(handled).toBe(before)
    })

    test('after revokeSessions the old cookie is 401 (GET and POST, bad body or not); the new epoch works', async () => {
      await users.revokeSessions(ownerId)
      const before = handled
      expect((await get(cookie(ownerId, 0))).status).toBe(401)
      expect((await post(cookie(ownerId, 0))).status).toBe(401)
      expect((await post(cookie(ownerId, 0), 'not json')).status).toBe(401)
      expect(handled).toBe(before)
      expect((await get(cookie(ownerId, 1))).status).toBe(200)
    })

    test('no cookie, a forged one, or a deleted user: 401', async () => {
      expect((await get('')).status).toBe(401)
      expect((await get(cookie(ownerId, 1).slice(0, -2) + 'AA')).status).toBe(401)
      const gone = await users.create({ email: 'gone@example.com', password: 'gone-password', isOwner: true })
      expect((await get(cookie(gone.id, 0))).status).toBe(200)
      expect(await users.remove(gone.id, { actorId: ownerId, mayRemoveOwner: true })).toBe('removed')
      expect((await get(cookie(gone.id, 0))).status).toBe(401)
      expect((await post(cookie(gone.id, 0))).status).toBe(401)
    })
  })
}
