// The cost_currency warning (issue 26): costs are recorded and no offer pays in the cost currency, so
// profit and ROI can never be computed (reports never convert). Said in GET /admin/api/settings.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { startServer, type TestServer } from '../helpers/server'
import { catalog, SERVER_TIMEOUT_MS } from '../reports/seed'

const WARNING = 'costs are counted in USD but no offer pays in USD: set cost_currency (offers pay in EUR; reports show cost and revenue side by side, never converted).'

describe('cost_currency warning', () => {
  let s: TestServer
  const warnings = async (): Promise<string[]> => {
    const res = await s.api('GET', '/admin/api/settings')
    expect(res.status).toBe(200)
    return res.body.warnings
  }

  beforeAll(async () => {
    s = await startServer()
  }, SERVER_TIMEOUT_MS)
  afterAll(() => s.destroy())

  test('said only while cost is recorded and no offer pays in cost_currency', async () => {
    const db = testDb(s)
    const now = Date.now()
    const offer = (await db.get<{ id: number }>(
      "INSERT INTO offers (name, slug, url, payout, currency, created_at, updated_at) VALUES ('E', 'e', 'https://a.example/', 5, 'EUR', $now, $now) RETURNING id",
      { now },
    ))!.id
    // No cost recorded yet: nothing to say.
    const campaign = await catalog(s).campaign({ offers: [offer], costModel: 'none' })
    expect(await warnings()).not.toContain(WARNING)
    await db.run("UPDATE campaigns SET cost_model = 'cpc', cpc = 0.1 WHERE id = $id", { id: campaign })
    expect(await warnings()).toContain(WARNING)
    // The setting names a currency an offer pays in: gone.
    expect((await s.api('PUT', '/admin/api/settings', { cost_currency: 'eur' })).body.warnings).not.toContain(WARNING)
    expect((await s.api('GET', '/admin/api/settings')).body.cost_currency).toBe('EUR')
    expect((await s.api('PUT', '/admin/api/settings', { cost_currency: 'USD' })).body.warnings).toContain(WARNING)
    // An offer in USD: gone too.
    await db.run("INSERT INTO offers (name, slug, url, payout, currency, created_at, updated_at) VALUES ('U', 'u', 'https://a.example/', 5, 'USD', $now, $now)", { now })
    expect((await warnings()).filter((w) => w.includes('cost_currency'))).toEqual([])
  })
})
