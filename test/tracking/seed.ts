// Seeds catalog rows with SQL (independent of the admin CRUD) and tells the routing cache. Engine-neutral
// through testDb: every call is async (callers await), ids come from INSERT … RETURNING id.
import { testDb } from '../helpers/db'
import type { TestServer } from '../helpers/server'

export interface CampaignSeed {
  slug: string
  sourceId?: number | null
  externalId?: string | null
  active?: boolean
  offers?: Array<[offerId: number, weight: number]>
  landings?: Array<[landingId: number, weight: number]>
}

/**
 * Timeout for a hook or test that starts a server. bun 1.4 ignores bunfig's [test] timeout (only --timeout
 * counts), so hooks and tests get 5 s; on Postgres the first server of a test process also starts the
 * throwaway cluster (initdb), and a restart opens a second server: more than 5 s on a loaded machine.
 */
export const SERVER_TIMEOUT_MS = 60_000

let n = 0
const uniq = (p: string) => `${p}-${Date.now().toString(36)}-${++n}`

export function seeder(s: TestServer) {
  const db = testDb(s)
  const now = Date.now()
  const insert = async (sql: string, params: Record<string, unknown>): Promise<number> =>
    (await db.get<{ id: number }>(`${sql} RETURNING id`, { ...params, now }))!.id
  const changed = () => s.ctx.events.committed('catalog.changed', { entity: 'campaign', id: 0, action: 'updated' })

  return {
    async source(postbackUrl: string | null = null): Promise<number> {
      const id = await insert('INSERT INTO sources (name, postback_url, created_at, updated_at) VALUES ($name, $url, $now, $now)', {
        name: uniq('source'), url: postbackUrl,
      })
      changed()
      return id
    },
    async offer(url: string, slug = uniq('offer')): Promise<number> {
      const id = await insert(
        'INSERT INTO offers (name, slug, url, payout, currency, created_at, updated_at) VALUES ($slug, $slug, $url, 0, $cur, $now, $now)',
        { slug, url, cur: 'USD' },
      )
      changed()
      return id
    },
    async landing(page: { url?: string | null; html?: string | null }, slug = uniq('landing')): Promise<number> {
      const id = await insert(
        'INSERT INTO landings (name, slug, url, html, created_at, updated_at) VALUES ($slug, $slug, $url, $html, $now, $now)',
        { slug, url: page.url ?? null, html: page.html ?? null },
      )
      changed()
      return id
    },
    async campaign(c: CampaignSeed): Promise<number> {
      const id = await insert(
        'INSERT INTO campaigns (name, slug, source_id, external_id, active, created_at, updated_at) ' +
          'VALUES ($slug, $slug, $source, $ext, $active, $now, $now)',
        { slug: c.slug, source: c.sourceId ?? null, ext: c.externalId ?? null, active: c.active === false ? 0 : 1 },
      )
      for (const [p, [offerId, weight]] of (c.offers ?? []).entries()) {
        await db.run('INSERT INTO campaign_offers (campaign_id, offer_id, weight, position) VALUES ($c, $o, $w, $p)', { c: id, o: offerId, w: weight, p })
      }
      for (const [p, [landingId, weight]] of (c.landings ?? []).entries()) {
        await db.run('INSERT INTO campaign_landings (campaign_id, landing_id, weight, position) VALUES ($c, $l, $w, $p)', { c: id, l: landingId, w: weight, p })
      }
      changed()
      return id
    },
    /** Runs a catalog statement, then tells the routing cache. */
    async exec(sql: string, params: Record<string, unknown> = {}): Promise<void> {
      await db.run(sql, params)
      changed()
    },
  }
}

export async function clickRow(s: TestServer, clickId: string): Promise<Record<string, any> | undefined> {
  return testDb(s).get('SELECT * FROM clicks WHERE click_id = $id', { id: clickId })
}

export async function clickCount(s: TestServer): Promise<number> {
  return (await testDb(s).get<{ n: number }>('SELECT count(*) AS n FROM clicks'))!.n
}

/** The click id of the `_svc_click` cookie a response sets, or null. */
export function cookieClickId(res: Response): string | null {
  const c = res.headers.get('set-cookie')
  const m = c && /^_svc_click=([^;]*)/.exec(c)
  return m ? m[1]! : null
}
