// The catalog store, one module for both engines (db/store-db.ts). It only stores: what a write must check
// (exists, slug free, references exist, used by) is decided by the steps in changes.ts, run inside one
// transaction with the queries here.
import { isUniqueViolation } from '../../db/errors'
import type { AnyDatabase } from '../../db/engine'
import { empty, inList, join, raw, sql, type Sql } from '../../db/sql'
import { storeDb, type Queries, type StoreDb } from '../../db/store-db'
import type { Page } from '../../lib/paging'
import type { MaybeAsync, Steps } from '../../lib/steps'
import { campaignSteps, createSteps, removeSteps, updateSteps, type CatalogQueries, type LinkKind, type Values } from './changes'
import { slugTaken, type Entity, type Slugged } from './errors'
import { ruleSetStore } from './rule-sets'
import type {
  Campaign, CampaignLinks, CampaignPath, CampaignRow, CampaignValues, CatalogStore, LandingRow, LandingValues, LinkChanges, LinkRef, OfferRow,
  OfferValues, PathRow, RoutingRows, RoutingSource, SourceRow, SourceValues,
} from './types'

const TABLE: Record<Entity, string> = { source: 'sources', offer: 'offers', landing: 'landings', campaign: 'campaigns' }

/** Each table's columns under their camelCase names (fixed text). */
const COLS: Record<Entity, Sql> = {
  source: raw('id, name, postback_url AS "postbackUrl", link_params AS "linkParams", created_at AS "createdAt", updated_at AS "updatedAt"'),
  offer: raw('id, name, slug, url, payout, currency, cap, created_at AS "createdAt", updated_at AS "updatedAt"'),
  landing: raw('id, name, slug, url, html, email_list_id AS "emailListId", created_at AS "createdAt", updated_at AS "updatedAt"'),
  campaign: raw('id, name, slug, source_id AS "sourceId", external_id AS "externalId", active, bot_url AS "botUrl", ' +
    'fallback_url AS "fallbackUrl", cost_model AS "costModel", cpc, cpm, revshare_percent AS "revsharePercent", created_at AS "createdAt", updated_at AS "updatedAt"'),
}

/** Column of each writable field; only these keys ever reach SQL (booleans bind as 1/0). */
const COLUMNS: Record<string, string> = {
  name: 'name', postbackUrl: 'postback_url', linkParams: 'link_params', slug: 'slug', url: 'url', payout: 'payout', currency: 'currency', cap: 'cap',
  html: 'html', emailListId: 'email_list_id', sourceId: 'source_id', externalId: 'external_id', active: 'active',
  botUrl: 'bot_url', fallbackUrl: 'fallback_url', costModel: 'cost_model', cpc: 'cpc', cpm: 'cpm', revsharePercent: 'revshare_percent',
  createdAt: 'created_at', updatedAt: 'updated_at',
}

/** The known columns a write sets, as [column, value] pairs (undefined skipped). */
const assigned = (values: Values): Array<[Sql, unknown]> =>
  Object.entries(values).filter(([k, v]) => COLUMNS[k] && v !== undefined).map(([k, v]) => [raw(COLUMNS[k]!), v])

const LINK = {
  offers: { table: raw('campaign_offers'), ref: raw('offer_id') },
  landings: { table: raw('campaign_landings'), ref: raw('landing_id') },
}
/** A path's own rotation (action 'rotation'). */
const PATH_LINK = {
  offers: { table: raw('path_offers'), ref: raw('offer_id') },
  landings: { table: raw('path_landings'), ref: raw('landing_id') },
}
/** Offer entries carry their cap (catalog/caps); landing entries have none. */
const capColumn = (kind: LinkKind) => (kind === 'offers' ? raw(', cap') : raw(''))
const capValue = (kind: LinkKind, r: LinkRef) => (kind === 'offers' ? sql`, ${r.cap ?? null}` : raw(''))
const PATH_COLS = raw('id, campaign_id AS "campaignId", position, name, active, rule_set_id AS "ruleSetId", conditions, action, url')

/** A campaign's active is an integer flag on both engines; its row carries the boolean. */
const toCampaign = (r: Values): CampaignRow => ({ ...r, active: Number(r.active) !== 0 }) as CampaignRow

/** A value or a Promise of it, mapped without adding an await on SQLite. */
const then = <T, U>(v: MaybeAsync<T>, f: (t: T) => U): MaybeAsync<U> => (v instanceof Promise ? v.then(f) : f(v))

export class CatalogDbStore implements CatalogStore, RoutingSource {
  private readonly db: StoreDb

  constructor(database: AnyDatabase) {
    this.db = storeDb(database)
    ;({ listRuleSets: this.listRuleSets, findRuleSet: this.findRuleSet, createRuleSet: this.createRuleSet,
      updateRuleSet: this.updateRuleSet, deleteRuleSet: this.deleteRuleSet } = ruleSetStore(this.db))
  }

  /**
   * Synchronous on SQLite, on purpose (see RoutingSource): the redirect that rebuilds the table after a
   * catalog change builds it inside that request, without an await. One snapshot on Postgres, so a campaign
   * is never seen without the rotation it committed with.
   */
  routingRows(): MaybeAsync<RoutingRows> {
    return this.db.snapshot(function* (q): Steps<RoutingRows> {
      // Paused campaigns too when they have a fallback_url: their visitors go there.
      const campaigns: RoutingRows['campaigns'] = yield q.all(sql`SELECT id, slug, source_id AS "sourceId",
        external_id AS "externalId", active, bot_url AS "botUrl", fallback_url AS "fallbackUrl", cost_model AS "costModel", cpc, cpm
        FROM campaigns WHERE active = 1 OR fallback_url IS NOT NULL`)
      const offers: RoutingRows['offers'] = yield q.all(sql`SELECT co.campaign_id AS "campaignId", co.offer_id AS "offerId",
        co.weight, co.auto_weight AS "autoWeight", o.url, co.cap, o.cap AS "offerCap" FROM campaign_offers co JOIN offers o ON o.id = co.offer_id ORDER BY co.campaign_id, co.position`)
      const landings: RoutingRows['landings'] = yield q.all(sql`SELECT cl.campaign_id AS "campaignId", cl.landing_id AS "landingId",
        cl.weight, cl.auto_weight AS "autoWeight", l.slug, l.url, CASE WHEN l.html IS NOT NULL AND l.html <> '' THEN 1 ELSE 0 END AS "hasHtml"
        FROM campaign_landings cl JOIN landings l ON l.id = cl.landing_id ORDER BY cl.campaign_id, cl.position`)
      // Active paths of the campaigns above, in order, each with its rule set's conditions and its own rotation.
      const paths: RoutingRows['paths'] = yield q.all(sql`SELECT p.id, p.campaign_id AS "campaignId", p.name, p.conditions,
        r.conditions AS "ruleConditions", p.action, p.url FROM campaign_paths p LEFT JOIN rule_sets r ON r.id = p.rule_set_id
        WHERE p.active = 1 ORDER BY p.campaign_id, p.position, p.id`)
      const pathOffers: RoutingRows['pathOffers'] = yield q.all(sql`SELECT po.path_id AS "pathId", po.offer_id AS "offerId", po.weight, po.auto_weight AS "autoWeight", o.url,
        po.cap, o.cap AS "offerCap" FROM path_offers po JOIN offers o ON o.id = po.offer_id ORDER BY po.path_id, po.position`)
      const pathLandings: RoutingRows['pathLandings'] = yield q.all(sql`SELECT pl.path_id AS "pathId", pl.landing_id AS "landingId",
        pl.weight, pl.auto_weight AS "autoWeight", l.slug, l.url, CASE WHEN l.html IS NOT NULL AND l.html <> '' THEN 1 ELSE 0 END AS "hasHtml"
        FROM path_landings pl JOIN landings l ON l.id = pl.landing_id ORDER BY pl.path_id, pl.position`)
      const allOffers: RoutingRows['allOffers'] = yield q.all(sql`SELECT id, url, cap FROM offers ORDER BY id`)
      return { campaigns, offers, landings, paths, pathOffers, pathLandings, allOffers }
    })
  }

  listRuleSets: CatalogStore['listRuleSets']
  findRuleSet: CatalogStore['findRuleSet']
  createRuleSet: CatalogStore['createRuleSet']
  updateRuleSet: CatalogStore['updateRuleSet']
  deleteRuleSet: CatalogStore['deleteRuleSet']

  listSources = (page: Page) => this.list<SourceRow>('source', page)
  findSource = (id: number) => this.find<SourceRow>('source', id)
  createSource = (values: SourceValues) => this.create<SourceRow>('source', values)
  updateSource = (id: number, changes: Partial<SourceValues>) => this.update<SourceRow>('source', id, changes)
  deleteSource = (id: number) => this.remove('source', id)

  listOffers = (page: Page) => this.list<OfferRow>('offer', page)
  findOffer = (id: number) => this.find<OfferRow>('offer', id)
  createOffer = (values: OfferValues) => this.create<OfferRow>('offer', values)
  updateOffer = (id: number, changes: Partial<OfferValues>) => this.update<OfferRow>('offer', id, changes)
  deleteOffer = (id: number) => this.remove('offer', id)

  listLandings = (page: Page) => this.list<LandingRow>('landing', page)
  findLanding = (id: number) => this.find<LandingRow>('landing', id)
  findLandingBySlug = (slug: string) => this.db.get<LandingRow>(sql`SELECT ${COLS.landing} FROM landings WHERE slug = ${slug}`)
  createLanding = (values: LandingValues) => this.create<LandingRow>('landing', values)
  updateLanding = (id: number, changes: Partial<LandingValues>) => this.update<LandingRow>('landing', id, changes)
  deleteLanding = (id: number) => this.remove('landing', id)

  async listCampaigns(page: Page): Promise<Campaign[]> {
    return this.db.snapshot(function* (q): Steps<Campaign[]> {
      const rows: Values[] = yield q.all(sql`SELECT ${COLS.campaign} FROM campaigns WHERE id > ${page.afterId} ORDER BY id LIMIT ${page.limit + 1}`)
      return yield* withLinks(q, rows.map(toCampaign))
    })
  }

  async findCampaign(id: number): Promise<Campaign | undefined> {
    return this.db.snapshot((q) => campaignOf(q, id))
  }

  createCampaign(values: CampaignValues, links: Required<Pick<LinkChanges, 'offers' | 'landings'>> & LinkChanges): Promise<Campaign> {
    return this.writeCampaign(null, values, links)
  }

  updateCampaign(id: number, changes: Partial<CampaignValues>, links: LinkChanges): Promise<Campaign> {
    return this.writeCampaign(id, changes, links)
  }

  deleteCampaign = (id: number) => this.remove('campaign', id)

  private async writeCampaign(id: number | null, values: Partial<CampaignValues>, links: LinkChanges): Promise<Campaign> {
    const now = Date.now()
    return this.unique(values.slug, 'campaign', (q) => (function* (): Steps<Campaign> {
      const saved = yield* campaignSteps(q.catalog, id, values, links, now)
      return (yield* campaignOf(q.plain, saved))!
    })())
  }

  private list<R>(what: Entity, page: Page): Promise<R[]> {
    return this.db.all<R>(sql`SELECT ${COLS[what]} FROM ${raw(TABLE[what])} WHERE id > ${page.afterId} ORDER BY id LIMIT ${page.limit + 1}`)
  }

  private find<R>(what: Exclude<Entity, 'campaign'>, id: number): Promise<R | undefined> {
    return this.db.get<R>(sql`SELECT ${COLS[what]} FROM ${raw(TABLE[what])} WHERE id = ${id}`)
  }

  private create<R>(what: Exclude<Entity, 'campaign'>, values: object): Promise<R> {
    const now = Date.now()
    return this.unique((values as Values).slug, what, (q) => createSteps(q.catalog, what, values as Values, now)) as Promise<R>
  }

  private update<R>(what: Exclude<Entity, 'campaign'>, id: number, changes: object): Promise<R> {
    const now = Date.now()
    return this.unique((changes as Values).slug, what, (q) => updateSteps(q.catalog, what, id, changes as Values, now)) as Promise<R>
  }

  private async remove(what: Entity, id: number): Promise<void> {
    await this.db.atomically((q) => removeSteps(this.queries(q), what, id))
  }

  /** A write in one transaction; a UNIQUE violation that slipped past the slug check (a race) becomes its conflict. */
  private async unique<R>(slug: unknown, what: Entity, body: (q: { catalog: CatalogQueries; plain: Queries }) => Steps<R>): Promise<R> {
    try {
      return await this.db.atomically((q) => body({ catalog: this.queries(q), plain: q }))
    } catch (err) {
      if (what !== 'source' && isUniqueViolation(err)) throw slugTaken(typeof slug === 'string' ? slug : '', what as Slugged)
      throw err
    }
  }

  private queries(q: Queries): CatalogQueries {
    const { forUpdate, forShare } = this.db
    return {
      exists: (what, id, lock) => q.get<{ id: number }>(sql`SELECT id FROM ${raw(TABLE[what])} WHERE id = ${id} ${lock ? forUpdate : empty}`),
      slugHolder: (what, slug, exceptId) => q.get<{ id: number }>(sql`SELECT id FROM ${raw(TABLE[what])} WHERE slug = ${slug} AND id <> ${exceptId} LIMIT 1`),
      // An offer or landing is used by a campaign's rotation or by one of its paths' rotations.
      campaignUsing: (what, id) => what === 'source'
        ? q.get<{ id: number; slug: string }>(sql`SELECT id, slug FROM campaigns WHERE source_id = ${id} ORDER BY id LIMIT 1`)
        : q.get<{ id: number; slug: string }>(sql`SELECT c.id, c.slug FROM campaigns c WHERE c.id IN (
            SELECT x.campaign_id FROM ${LINK[`${what}s`].table} x WHERE x.${LINK[`${what}s`].ref} = ${id}
            UNION SELECT p.campaign_id FROM ${PATH_LINK[`${what}s`].table} y JOIN campaign_paths p ON p.id = y.path_id
              WHERE y.${PATH_LINK[`${what}s`].ref} = ${id}) ORDER BY c.id LIMIT 1`),
      productUsing: (offerId) => q.get<{ id: number; name: string }>(sql`SELECT id, name FROM products WHERE offer_id = ${offerId} ORDER BY id LIMIT 1`),
      anyClick: (campaignId) => q.get<{ id: number }>(sql`SELECT campaign_id AS id FROM clicks WHERE campaign_id = ${campaignId} LIMIT 1`),
      shared: (table, ids) => q.all<{ id: number }>(sql`SELECT id FROM ${raw(table)} WHERE id IN ${inList(ids)} ORDER BY id ${forShare}`),
      insert: (what, values) => {
        const cols = assigned(values)
        const text = sql`INSERT INTO ${raw(TABLE[what])} (${join(cols.map(([c]) => c))}) VALUES (${join(cols.map(([, v]) => sql`${v}`))})
          RETURNING ${COLS[what]}`
        return then(q.get<Values>(text), (row) => (what === 'campaign' ? toCampaign(row!) : row!))
      },
      update: (what, id, changes) => {
        const sets = join(assigned(changes).map(([c, v]) => sql`${c} = ${v}`))
        return q.get<Values>(sql`UPDATE ${raw(TABLE[what])} SET ${sets} WHERE id = ${id} RETURNING ${COLS[what]}`)
      },
      delete: (what, id) => q.run(sql`DELETE FROM ${raw(TABLE[what])} WHERE id = ${id}`),
      clearLinks: (kind, campaignId) => q.run(sql`DELETE FROM ${LINK[kind].table} WHERE campaign_id = ${campaignId}`),
      // One multi-row INSERT, each link with its position in the given order.
      addLinks: (kind, campaignId, refs) => q.run(sql`INSERT INTO ${LINK[kind].table} (campaign_id, ${LINK[kind].ref}, weight, position${capColumn(kind)})
        VALUES ${join(refs.map((r, position) => sql`(${campaignId}, ${r.id}, ${r.weight}, ${position}${capValue(kind, r)})`))}`),
      pathIds: (campaignId) => q.all<{ id: number }>(sql`SELECT id FROM campaign_paths WHERE campaign_id = ${campaignId}`),
      dropPaths: (campaignId, keep) => q.run(keep.length
        ? sql`DELETE FROM campaign_paths WHERE campaign_id = ${campaignId} AND id NOT IN ${inList(keep)}`
        : sql`DELETE FROM campaign_paths WHERE campaign_id = ${campaignId}`),
      savePath: (campaignId, p, position) => p.id === null
        ? q.get<{ id: number }>(sql`INSERT INTO campaign_paths (campaign_id, position, name, active, rule_set_id, conditions, action, url)
            VALUES (${campaignId}, ${position}, ${p.name}, ${p.active ? 1 : 0}, ${p.ruleSetId}, ${p.conditions}, ${p.action}, ${p.url}) RETURNING id`)
        : q.get<{ id: number }>(sql`UPDATE campaign_paths SET position = ${position}, name = ${p.name}, active = ${p.active ? 1 : 0},
            rule_set_id = ${p.ruleSetId}, conditions = ${p.conditions}, action = ${p.action}, url = ${p.url} WHERE id = ${p.id} RETURNING id`),
      clearPathLinks: (kind, pathId) => q.run(sql`DELETE FROM ${PATH_LINK[kind].table} WHERE path_id = ${pathId}`),
      addPathLinks: (kind, pathId, refs) => q.run(sql`INSERT INTO ${PATH_LINK[kind].table} (path_id, ${PATH_LINK[kind].ref}, weight, position${capColumn(kind)})
        VALUES ${join(refs.map((r, position) => sql`(${pathId}, ${r.id}, ${r.weight}, ${position}${capValue(kind, r)})`))}`),
    }
  }
}

function* campaignOf(q: Queries, id: number): Steps<Campaign | undefined> {
  const row: Values | undefined = yield q.get(sql`SELECT ${COLS.campaign} FROM campaigns WHERE id = ${id}`)
  if (!row) return undefined
  return (yield* withLinks(q, [toCampaign(row)]))[0]
}

/** Each campaign with its offers and landings in the order they were given (position; the linked id breaks ties of rows seeded by hand). */
function* withLinks(q: Queries, rows: CampaignRow[]): Steps<Campaign[]> {
  const links = new Map<number, CampaignLinks>(rows.map((r) => [r.id, { offers: [], landings: [] }]))
  if (rows.length === 0) return []
  const ids = inList(rows.map((r) => r.id))
  for (const kind of ['offers', 'landings'] as LinkKind[]) {
    const { table, ref } = LINK[kind]
    const found: Array<{ campaignId: number; id: number; weight: number; cap: string | null; autoWeight: number | null }> = yield q.all(sql`SELECT campaign_id AS "campaignId",
      ${ref} AS id, weight, auto_weight AS "autoWeight", ${kind === 'offers' ? raw('cap') : raw('NULL')} AS cap FROM ${table} WHERE campaign_id IN ${ids} ORDER BY campaign_id, position, ${ref}`)
    for (const l of found) {
      const list = links.get(l.campaignId)!
      if (kind === 'offers') list.offers.push({ offerId: l.id, weight: l.weight, ...(l.cap ? { cap: l.cap } : {}), autoWeight: l.autoWeight ?? undefined })
      else list.landings.push({ landingId: l.id, weight: l.weight, autoWeight: l.autoWeight ?? undefined })
    }
  }
  const paths = yield* pathsOf(q, rows.map((r) => r.id))
  // The query string each campaign's source puts on the tracking link (templates, issue 29: tracking_url).
  const sourceIds = [...new Set(rows.flatMap((r) => (r.sourceId === null ? [] : [r.sourceId])))]
  const params = new Map<number, string | null>()
  if (sourceIds.length) {
    const found: Array<{ id: number; linkParams: string | null }> = yield q.all(sql`SELECT id, link_params AS "linkParams" FROM sources WHERE id IN ${inList(sourceIds)}`)
    for (const s of found) params.set(s.id, s.linkParams)
  }
  return rows.map((row) => ({
    row, links: links.get(row.id)!, paths: paths.get(row.id) ?? [], sourceLinkParams: row.sourceId === null ? null : params.get(row.sourceId) ?? null,
  }))
}

/** The campaigns' paths in order, each with its own rotation. */
function* pathsOf(q: Queries, campaignIds: number[]): Steps<Map<number, CampaignPath[]>> {
  const rows: PathRow[] = yield q.all(sql`SELECT ${PATH_COLS} FROM campaign_paths WHERE campaign_id IN ${inList(campaignIds)}
    ORDER BY campaign_id, position, id`)
  const out = new Map<number, CampaignPath[]>()
  if (rows.length === 0) return out
  const byId = new Map<number, CampaignPath>()
  for (const r of rows) {
    const path: CampaignPath = { row: { ...r, active: Number(r.active) !== 0 }, offers: [], landings: [] }
    byId.set(r.id, path)
    const list = out.get(r.campaignId)
    if (list) list.push(path)
    else out.set(r.campaignId, [path])
  }
  const ids = inList([...byId.keys()])
  for (const kind of ['offers', 'landings'] as LinkKind[]) {
    const { table, ref } = PATH_LINK[kind]
    const found: Array<{ pathId: number; id: number; weight: number; cap: string | null; autoWeight: number | null }> = yield q.all(sql`SELECT path_id AS "pathId", ${ref} AS id, weight, auto_weight AS "autoWeight",
      ${kind === 'offers' ? raw('cap') : raw('NULL')} AS cap
      FROM ${table} WHERE path_id IN ${ids} ORDER BY path_id, position, ${ref}`)
    for (const l of found) {
      const p = byId.get(l.pathId)!
      if (kind === 'offers') p.offers.push({ offerId: l.id, weight: l.weight, ...(l.cap ? { cap: l.cap } : {}), autoWeight: l.autoWeight ?? undefined })
      else p.landings.push({ landingId: l.id, weight: l.weight, autoWeight: l.autoWeight ?? undefined })
    }
  }
  return out
}
