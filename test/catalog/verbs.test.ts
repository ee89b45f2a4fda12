// The catalog verbs called directly, the way MCP and the CLI will call them: permissions, input schema,
// error codes, and catalog.changed heard after the commit only.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { adminActor, invoke, systemActor, type Verb } from '../../src/lib/verb'
import type { AppError } from '../../src/lib/errors'
import type { AdminUser } from '../../src/lib/permissions'
import type { DomainEvents } from '../../src/events'

let s: TestServer
let heard: Array<DomainEvents['catalog.changed']> = []
beforeAll(async () => {
  s = await startServer()
  s.ctx.events.on('catalog.changed', 'after-commit', 'test', (change) => { heard.push(change) })
})
afterAll(() => s.destroy())
beforeEach(() => { heard = [] })

const system = systemActor('test')
const verb = (name: string) => {
  const v = s.server.verbs.get(name)
  if (!v) throw new Error(`no verb ${name}`)
  return v as Verb
}
const run = (name: string, input: unknown, actor = system) => invoke(verb(name), actor, input as never) as Promise<any>

/** The AppError a call rejects with, as { code, message }. */
async function failure(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call
  } catch (err) {
    const e = err as AppError
    return { code: e.code, message: e.message }
  }
  throw new Error('expected the call to fail')
}

const admin = (permissions: AdminUser['permissions']): AdminUser => ({ id: 99, email: 'x@example.com', isOwner: false, permissions, sessionEpoch: 0 })

describe('catalog verbs', () => {
  test('every entity offers list, get, create, update and delete', () => {
    const names = [...s.server.verbs.keys()].filter((n) => n.startsWith('catalog.')).sort()
    const expected = ['sources', 'offers', 'landings', 'campaigns', 'rule_sets']
      .flatMap((e) => ['list', 'get', 'create', 'update', 'delete'].map((a) => `catalog.${e}.${a}`)).sort()
    expect(names).toEqual(expected)
  })

  test('the system actor creates, reads, changes and deletes; each write is heard after commit with entity, id and action', async () => {
    const source = await run('catalog.sources.create', { name: 'Push' })
    const offer = await run('catalog.offers.create', { name: 'Offer', slug: 'verb-offer', url: 'https://adv.example/?c={click_id}' })
    const campaign = await run('catalog.campaigns.create', { name: 'C', slug: 'verb-campaign', source_id: source.id, offer_id: offer.id })
    expect(campaign.links.offers).toEqual([{ offerId: offer.id, weight: 100 }])
    expect((await run('catalog.campaigns.get', { id: campaign.row.id })).row.slug).toBe('verb-campaign')

    const changed = await run('catalog.campaigns.update', { id: campaign.row.id, active: false })
    expect(changed.row.active).toBe(false)
    const page = await run('catalog.campaigns.list', { limit: '1' })
    expect(page.items.length).toBe(1)
    await run('catalog.campaigns.delete', { id: campaign.row.id })

    expect(heard).toEqual([
      { entity: 'source', id: source.id, action: 'created' },
      { entity: 'offer', id: offer.id, action: 'created' },
      { entity: 'campaign', id: campaign.row.id, action: 'created' },
      { entity: 'campaign', id: campaign.row.id, action: 'updated' },
      { entity: 'campaign', id: campaign.row.id, action: 'deleted' },
    ])
  })

  test('an admin without the section permission is forbidden, and nothing is written or heard', async () => {
    const landingsOnly = adminActor(admin({ landings: { read: true, write: true } }))
    expect(await failure(run('catalog.offers.create', { name: 'O', slug: 'nope', url: 'https://a.example/' }, landingsOnly)))
      .toEqual({ code: 'forbidden', message: 'missing permission campaigns:write' })
    expect(await failure(run('catalog.sources.list', {}, adminActor(admin({ campaigns: { write: true } })))))
      .toEqual({ code: 'forbidden', message: 'missing permission campaigns:read' })
    const landing = await run('catalog.landings.create', { name: 'L', slug: 'verb-landing', html: '<p>hi</p>' }, landingsOnly)
    expect(heard).toEqual([{ entity: 'landing', id: landing.id, action: 'created' }])
    expect(await failure(run('catalog.offers.get', { id: 1 }, landingsOnly))).toMatchObject({ code: 'forbidden' })
  })

  test('input that breaks the schema is invalid, naming the field', async () => {
    const bad = await failure(run('catalog.offers.create', { name: 'O', slug: 'typed', url: 5 }))
    expect(bad.code).toBe('invalid')
    expect(bad.message.startsWith('url: ')).toBe(true)
    const noId = await failure(run('catalog.campaigns.update', { id: 0, name: 'x' }))
    expect(noId.code).toBe('invalid')
    expect(noId.message.startsWith('id: ')).toBe(true)
    expect(await failure(run('catalog.sources.list', { limit: 'many' })))
      .toEqual({ code: 'invalid', message: 'limit: must be a whole number from 1 to 500' })
    expect(heard).toEqual([])
  })

  test('a failed write (409, 404, a missing reference) is not heard', async () => {
    const offer = await run('catalog.offers.create', { name: 'O', slug: 'taken-slug', url: 'https://a.example/' })
    const campaign = await run('catalog.campaigns.create', { name: 'C', slug: 'uses-offer', offer_id: offer.id })
    heard = []
    expect(await failure(run('catalog.offers.create', { name: 'O2', slug: 'taken-slug', url: 'https://b.example/' })))
      .toEqual({ code: 'conflict', message: 'slug: "taken-slug" is already used by another offer' })
    expect(await failure(run('catalog.offers.delete', { id: offer.id })))
      .toEqual({ code: 'conflict', message: `offer is used by campaign "uses-offer" (id ${campaign.row.id})` })
    expect(await failure(run('catalog.campaigns.update', { id: campaign.row.id, offers: [{ offer_id: 987654 }] })))
      .toEqual({ code: 'invalid', message: 'offers.0.offer_id: offer 987654 does not exist' })
    expect(await failure(run('catalog.sources.update', { id: 987654, name: 'x' })))
      .toEqual({ code: 'not_found', message: 'source not found' })
    expect(heard).toEqual([])
    // The failed rotation change left the old one in place.
    expect((await run('catalog.campaigns.get', { id: campaign.row.id })).links.offers).toEqual([{ offerId: offer.id, weight: 100 }])
  })
})
