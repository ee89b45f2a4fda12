// Seeds catalog rows with SQL (independent of the admin CRUD) and tells the routing cache.
import type { TestServer } from '../helpers/server'

export interface CampaignSeed {
  slug: string
  sourceId?: number | null
  externalId?: string | null
  active?: boolean
  offers?: Array<[offerId: number, weight: number]>
  landings?: Array<[landingId: number, weight: number]>
}

let n = 0
const uniq = (p: string) => `${p}-${Date.now().toString(36)}-${++n}`

export function seeder(s: TestServer) {
  const raw = s.ctx.database.raw
  const now = Date.now()
  const insert = (sql: string, params: Record<string, unknown>): number =>
    Number(raw.prepare(sql).run({ ...params, now }).lastInsertRowid)
  const changed = () => s.ctx.events.committed('catalog.changed', { entity: 'campaign', id: 0, action: 'updated' })

  return {
    source(postbackUrl: string | null = null): number {
      const id = insert('INSERT INTO sources (name, postback_url, created_at, updated_at) VALUES ($name, $url, $now, $now)', {
        name: uniq('source'), url: postbackUrl,
      })
      changed()
      return id
    },
    offer(url: string, slug = uniq('offer')): number {
      const id = insert(
        'INSERT INTO offers (name, slug, url, payout, currency, created_at, updated_at) VALUES ($slug, $slug, $url, 0, $cur, $now, $now)',
        { slug, url, cur: 'USD' },
      )
      changed()
      return id
    },
    landing(page: { url?: string | null; html?: string | null }, slug = uniq('landing')): number {
      const id = insert(
        'INSERT INTO landings (name, slug, url, html, created_at, updated_at) VALUES ($slug, $slug, $url, $html, $now, $now)',
        { slug, url: page.url ?? null, html: page.html ?? null },
      )
      changed()
      return id
    },
    campaign(c: CampaignSeed): number {
      const id = insert(
        'INSERT INTO campaigns (name, slug, source_id, external_id, active, created_at, updated_at) ' +
          'VALUES ($slug, $slug, $source, $ext, $active, $now, $now)',
        { slug: c.slug, source: c.sourceId ?? null, ext: c.externalId ?? null, active: c.active === false ? 0 : 1 },
      )
      for (const [offerId, weight] of c.offers ?? []) {
        raw.prepare('INSERT INTO campaign_offers (campaign_id, offer_id, weight) VALUES ($c, $o, $w)').run({ c: id, o: offerId, w: weight })
      }
      for (const [landingId, weight] of c.landings ?? []) {
        raw.prepare('INSERT INTO campaign_landings (campaign_id, landing_id, weight) VALUES ($c, $l, $w)').run({ c: id, l: landingId, w: weight })
      }
      changed()
      return id
    },
    exec(sql: string, params: Record<string, unknown> = {}) {
      raw.prepare(sql).run(params)
      changed()
    },
  }
}

export function clickRow(s: TestServer, clickId: string): Record<string, any> | undefined {
  return s.ctx.database.raw.prepare('SELECT * FROM clicks WHERE click_id = $id').get({ id: clickId }) as never
}

export function clickCount(s: TestServer): number {
  return (s.ctx.database.raw.prepare('SELECT count(*) AS n FROM clicks').get() as { n: number }).n
}

/** The click id of the `_svc_click` cookie a response sets, or null. */
export function cookieClickId(res: Response): string | null {
  const c = res.headers.get('set-cookie')
  const m = c && /^_svc_click=([^;]*)/.exec(c)
  return m ? m[1]! : null
}
