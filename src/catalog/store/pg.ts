// The catalog store on PostgreSQL (issue 8): the same rows, errors and ordering as store/sqlite.ts, through
// Bun's SQL client. Each write is one transaction holding its referential checks. Several instances may
// write at once, so the checks also lock what they rely on: a campaign write takes FOR SHARE locks on the
// source, offers and landings it links, and a delete takes FOR UPDATE on the row it removes. Whichever
// comes second then waits, and sees the other's committed result (so no foreign-key error reaches a caller).
import type { SQL, TransactionSQL } from 'bun'
import type { PgDatabase } from '../../db/pg/client'
import type { Page } from '../../lib/paging'
import { campaignHasClicks, checkFound, missingRow, slugTaken, unknownEmailList, unknownSource, usedByCampaign, usedByProduct, type Slugged } from './errors'
import type {
  Campaign, CampaignLinks, CampaignRow, CampaignValues, CatalogStore, LandingRow, LandingValues, LinkChanges, OfferRow,
  OfferValues, RoutingRows, RoutingSource, SourceRow, SourceValues,
} from './types'

/** The pool or a transaction: both run tagged-template queries. */
type Q = SQL | TransactionSQL
type Raw = Record<string, unknown>

const UNIQUE_VIOLATION = '23505'

/** The SQLSTATE of a Postgres server error (Bun puts it in `errno`), else undefined. */
function sqlState(err: unknown): string | undefined {
  const e = err as { code?: unknown; errno?: unknown } | null
  return e && e.code === 'ERR_POSTGRES_SERVER_ERROR' && typeof e.errno === 'string' ? e.errno : undefined
}

/** Column name of each writable field (the schema's snake_case); only these keys ever reach SQL. */
const COLUMNS: Record<string, string> = {
  name: 'name', postbackUrl: 'postback_url', slug: 'slug', url: 'url', payout: 'payout', currency: 'currency',
  html: 'html', emailListId: 'email_list_id', sourceId: 'source_id', externalId: 'external_id', active: 'active',
  botUrl: 'bot_url', fallbackUrl: 'fallback_url', costModel: 'cost_model', cpc: 'cpc',
  createdAt: 'created_at', updatedAt: 'updated_at',
}

/** camelCase values → a row for sql(obj): known columns only, undefined skipped, `active` as the 0/1 flag. */
function toColumns(values: Raw): Raw {
  const out: Raw = {}
  for (const [k, v] of Object.entries(values)) {
    const col = COLUMNS[k]
    if (!col || v === undefined) continue
    out[col] = k === 'active' ? (v ? 1 : 0) : v
  }
  return out
}

const stamp = (r: Raw) => { r.createdAt = Number(r.createdAt); r.updatedAt = Number(r.updatedAt); return r }
const sourceRow = (r: Raw) => stamp(r) as unknown as SourceRow
const offerRow = (r: Raw) => stamp(r) as unknown as OfferRow
const landingRow = (r: Raw) => stamp(r) as unknown as LandingRow
const campaignRow = (r: Raw) => stamp(r) as unknown as CampaignRow

export class PgCatalogStore implements CatalogStore, RoutingSource {
  private readonly sql: SQL
  // The column lists of each table under their camelCase names (constant SQL text, no values).
  private readonly cols: { source: SQL.Query<unknown>; offer: SQL.Query<unknown>; landing: SQL.Query<unknown>; campaign: SQL.Query<unknown> }

  constructor(database: PgDatabase) {
    const sql = (this.sql = database.sql)
    this.cols = {
      source: sql`id, name, postback_url AS "postbackUrl", created_at AS "createdAt", updated_at AS "updatedAt"`,
      offer: sql`id, name, slug, url, payout, currency, created_at AS "createdAt", updated_at AS "updatedAt"`,
      landing: sql`id, name, slug, url, html, email_list_id AS "emailListId", created_at AS "createdAt", updated_at AS "updatedAt"`,
      // active is an integer flag on Postgres; rows carry the boolean SQLite's schema gives them.
      campaign: sql`id, name, slug, source_id AS "sourceId", external_id AS "externalId", (active <> 0) AS active, bot_url AS "botUrl",
        fallback_url AS "fallbackUrl", cost_model AS "costModel", cpc, created_at AS "createdAt", updated_at AS "updatedAt"`,
    }
  }

  /** All three reads in one snapshot, so a campaign is never seen without the rotation it committed with. */
  async routingRows(): Promise<RoutingRows> {
    return this.sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (tx) => {
      const campaigns = await tx`SELECT id, slug, source_id AS "sourceId", external_id AS "externalId", active, bot_url AS "botUrl",
        fallback_url AS "fallbackUrl", cost_model AS "costModel", cpc FROM campaigns WHERE active = 1 OR fallback_url IS NOT NULL`
      const offers = await tx`SELECT co.campaign_id AS "campaignId", co.offer_id AS "offerId", co.weight, o.url
        FROM campaign_offers co JOIN offers o ON o.id = co.offer_id ORDER BY co.campaign_id, co.position`
      const landings = await tx`SELECT cl.campaign_id AS "campaignId", cl.landing_id AS "landingId", cl.weight, l.slug, l.url,
        (l.html IS NOT NULL AND l.html <> '')::int AS "hasHtml" FROM campaign_landings cl JOIN landings l ON l.id = cl.landing_id
        ORDER BY cl.campaign_id, cl.position`
      return { campaigns: [...campaigns], offers: [...offers], landings: [...landings] } as RoutingRows
    })
  }

  /** A write in one transaction; a unique violation that slips past the slug check (a race) becomes its error. */
  private async write<T>(fn: (tx: TransactionSQL) => Promise<T>, onUnique?: () => Error): Promise<T> {
    try {
      return (await this.sql.begin(fn)) as T
    } catch (err) {
      if (onUnique && sqlState(err) === UNIQUE_VIOLATION) throw onUnique()
      throw err
    }
  }

  // ── sources ──

  async listSources(page: Page): Promise<SourceRow[]> {
    const rows = await this.sql`SELECT ${this.cols.source} FROM sources WHERE id > ${page.afterId} ORDER BY id LIMIT ${page.limit + 1}`
    return rows.map(sourceRow)
  }

  async findSource(id: number): Promise<SourceRow | undefined> {
    const [row] = await this.sql`SELECT ${this.cols.source} FROM sources WHERE id = ${id}`
    return row && sourceRow(row)
  }

  async createSource(values: SourceValues): Promise<SourceRow> {
    const now = Date.now()
    const [row] = await this.sql`INSERT INTO sources ${this.sql(toColumns({ ...values, createdAt: now, updatedAt: now }))} RETURNING ${this.cols.source}`
    return sourceRow(row)
  }

  async updateSource(id: number, changes: Partial<SourceValues>): Promise<SourceRow> {
    const [row] = await this.sql`UPDATE sources SET ${this.sql(toColumns({ ...changes, updatedAt: Date.now() }))} WHERE id = ${id} RETURNING ${this.cols.source}`
    if (!row) throw missingRow('source')
    return sourceRow(row)
  }

  async deleteSource(id: number): Promise<void> {
    await this.write(async (tx) => {
      if (!(await locked(tx, 'sources', id))) throw missingRow('source')
      const [user] = await tx`SELECT id, slug FROM campaigns WHERE source_id = ${id} ORDER BY id LIMIT 1`
      if (user) throw usedByCampaign('source', user as never)
      await tx`DELETE FROM sources WHERE id = ${id}`
    })
  }

  // ── offers ──

  async listOffers(page: Page): Promise<OfferRow[]> {
    const rows = await this.sql`SELECT ${this.cols.offer} FROM offers WHERE id > ${page.afterId} ORDER BY id LIMIT ${page.limit + 1}`
    return rows.map(offerRow)
  }

  async findOffer(id: number): Promise<OfferRow | undefined> {
    const [row] = await this.sql`SELECT ${this.cols.offer} FROM offers WHERE id = ${id}`
    return row && offerRow(row)
  }

  async createOffer(values: OfferValues): Promise<OfferRow> {
    if (await this.slugTaken('offers', values.slug)) throw slugTaken(values.slug, 'offer')
    const now = Date.now()
    try {
      const [row] = await this.sql`INSERT INTO offers ${this.sql(toColumns({ ...values, createdAt: now, updatedAt: now }))} RETURNING ${this.cols.offer}`
      return offerRow(row)
    } catch (err) {
      throw uniqueAs(err, values.slug, 'offer')
    }
  }

  async updateOffer(id: number, changes: Partial<OfferValues>): Promise<OfferRow> {
    if (!(await this.findOffer(id))) throw missingRow('offer')
    if (changes.slug !== undefined && (await this.slugTaken('offers', changes.slug, id))) throw slugTaken(changes.slug, 'offer')
    let row: Raw | undefined
    try {
      ;[row] = await this.sql`UPDATE offers SET ${this.sql(toColumns({ ...changes, updatedAt: Date.now() }))} WHERE id = ${id} RETURNING ${this.cols.offer}`
    } catch (err) {
      throw uniqueAs(err, changes.slug, 'offer')
    }
    if (!row) throw missingRow('offer')
    return offerRow(row)
  }

  async deleteOffer(id: number): Promise<void> {
    await this.write(async (tx) => {
      if (!(await locked(tx, 'offers', id))) throw missingRow('offer')
      const [user] = await tx`SELECT c.id, c.slug FROM campaign_offers co JOIN campaigns c ON c.id = co.campaign_id
        WHERE co.offer_id = ${id} ORDER BY c.id LIMIT 1`
      if (user) throw usedByCampaign('offer', user as never)
      const [product] = await tx`SELECT id, name FROM products WHERE offer_id = ${id} ORDER BY id LIMIT 1`
      if (product) throw usedByProduct(product as never)
      await tx`DELETE FROM offers WHERE id = ${id}`
    })
  }

  // ── landings ──

  async listLandings(page: Page): Promise<LandingRow[]> {
    const rows = await this.sql`SELECT ${this.cols.landing} FROM landings WHERE id > ${page.afterId} ORDER BY id LIMIT ${page.limit + 1}`
    return rows.map(landingRow)
  }

  async findLanding(id: number): Promise<LandingRow | undefined> {
    const [row] = await this.sql`SELECT ${this.cols.landing} FROM landings WHERE id = ${id}`
    return row && landingRow(row)
  }

  async findLandingBySlug(slug: string): Promise<LandingRow | undefined> {
    const [row] = await this.sql`SELECT ${this.cols.landing} FROM landings WHERE slug = ${slug}`
    return row && landingRow(row)
  }

  async createLanding(values: LandingValues): Promise<LandingRow> {
    if (await this.slugTaken('landings', values.slug)) throw slugTaken(values.slug, 'landing')
    const now = Date.now()
    try {
      return await this.sql.begin(async (tx) => {
        await checkEmailList(tx, values.emailListId)
        const [row] = await tx`INSERT INTO landings ${tx(toColumns({ ...values, createdAt: now, updatedAt: now }))} RETURNING ${this.cols.landing}`
        return landingRow(row)
      })
    } catch (err) {
      throw uniqueAs(err, values.slug, 'landing')
    }
  }

  async updateLanding(id: number, changes: Partial<LandingValues>): Promise<LandingRow> {
    if (!(await this.findLanding(id))) throw missingRow('landing')
    if (changes.slug !== undefined && (await this.slugTaken('landings', changes.slug, id))) throw slugTaken(changes.slug, 'landing')
    let row: Raw | undefined
    try {
      row = await this.sql.begin(async (tx) => {
        await checkEmailList(tx, changes.emailListId)
        const [r] = await tx`UPDATE landings SET ${tx(toColumns({ ...changes, updatedAt: Date.now() }))} WHERE id = ${id} RETURNING ${this.cols.landing}`
        return r as Raw | undefined
      })
    } catch (err) {
      throw uniqueAs(err, changes.slug, 'landing')
    }
    if (!row) throw missingRow('landing')
    return landingRow(row)
  }

  async deleteLanding(id: number): Promise<void> {
    await this.write(async (tx) => {
      if (!(await locked(tx, 'landings', id))) throw missingRow('landing')
      const [user] = await tx`SELECT c.id, c.slug FROM campaign_landings cl JOIN campaigns c ON c.id = cl.campaign_id
        WHERE cl.landing_id = ${id} ORDER BY c.id LIMIT 1`
      if (user) throw usedByCampaign('landing', user as never)
      await tx`DELETE FROM landings WHERE id = ${id}`
    })
  }

  // ── campaigns ──

  async listCampaigns(page: Page): Promise<Campaign[]> {
    const raw: Raw[] = await this.sql`SELECT ${this.cols.campaign} FROM campaigns WHERE id > ${page.afterId} ORDER BY id LIMIT ${page.limit + 1}`
    const rows = raw.map(campaignRow)
    const links = await linksOf(this.sql, rows.map((r) => r.id))
    return rows.map((row) => ({ row, links: links.get(row.id)! }))
  }

  async findCampaign(id: number): Promise<Campaign | undefined> {
    return campaignOf(this.sql, this.cols.campaign, id)
  }

  async createCampaign(values: CampaignValues, links: Required<LinkChanges>): Promise<Campaign> {
    return this.write(async (tx) => {
      await checkReferences(tx, values.sourceId, links)
      if (await this.slugTaken('campaigns', values.slug, 0, tx)) throw slugTaken(values.slug, 'campaign')
      const now = Date.now()
      const [row] = await tx`INSERT INTO campaigns ${tx(toColumns({ ...values, createdAt: now, updatedAt: now }))} RETURNING id`
      const id = (row as { id: number }).id
      await replaceLinks(tx, id, links)
      return (await campaignOf(tx, this.cols.campaign, id))!
    }, () => slugTaken(values.slug, 'campaign'))
  }

  async updateCampaign(id: number, changes: Partial<CampaignValues>, links: LinkChanges): Promise<Campaign> {
    return this.write(async (tx) => {
      // FOR UPDATE: a concurrent delete of this campaign waits for us (or we see it gone).
      if (!(await locked(tx, 'campaigns', id))) throw missingRow('campaign')
      await checkReferences(tx, changes.sourceId, links)
      if (changes.slug !== undefined && (await this.slugTaken('campaigns', changes.slug, id, tx))) throw slugTaken(changes.slug, 'campaign')
      await tx`UPDATE campaigns SET ${tx(toColumns({ ...changes, updatedAt: Date.now() }))} WHERE id = ${id}`
      await replaceLinks(tx, id, links)
      return (await campaignOf(tx, this.cols.campaign, id))!
    }, () => slugTaken(changes.slug ?? '', 'campaign'))
  }

  async deleteCampaign(id: number): Promise<void> {
    await this.write(async (tx) => {
      if (!(await locked(tx, 'campaigns', id))) throw missingRow('campaign')
      // Clicks point at campaigns without a foreign key: this read is the one place the catalog looks at
      // tracking data. Another instance may still record a click for this campaign until its routing table
      // drops it (catalog.changed), as a click in flight on SQLite may; the check covers every click committed.
      const [click] = await tx`SELECT 1 AS one FROM clicks WHERE campaign_id = ${id} LIMIT 1`
      if (click) throw campaignHasClicks()
      // campaign_offers and campaign_landings rows go with it (ON DELETE CASCADE).
      await tx`DELETE FROM campaigns WHERE id = ${id}`
    })
  }

  private async slugTaken(table: 'offers' | 'landings' | 'campaigns', slug: string, exceptId = 0, q: Q = this.sql): Promise<boolean> {
    const rows = await q`SELECT id FROM ${q(table)} WHERE slug = ${slug} AND id <> ${exceptId} LIMIT 1`
    return rows.length > 0
  }
}

/**
 * The list a landing enrols its leads into must exist. FOR SHARE keeps it until this write commits: a
 * concurrent list delete (FOR UPDATE, then its landing check) waits, then finds this landing.
 */
async function checkEmailList(tx: TransactionSQL, id: number | null | undefined): Promise<void> {
  if (id == null) return
  if ((await tx`SELECT id FROM email_lists WHERE id = ${id}::int8 FOR SHARE`).length === 0) throw unknownEmailList(id)
}

/** Locks the row for the rest of the transaction (FOR UPDATE); false when it does not exist. */
async function locked(tx: TransactionSQL, table: 'sources' | 'offers' | 'landings' | 'campaigns', id: number): Promise<boolean> {
  return (await tx`SELECT id FROM ${tx(table)} WHERE id = ${id} FOR UPDATE`).length > 0
}

/** The slug check runs first for its message; the UNIQUE index still decides a race between two writers. */
function uniqueAs(err: unknown, slug: string | undefined, what: Slugged): unknown {
  return sqlState(err) === UNIQUE_VIOLATION ? slugTaken(slug ?? '', what) : err
}

async function campaignOf(q: Q, cols: SQL.Query<unknown>, id: number): Promise<Campaign | undefined> {
  const [raw] = await q`SELECT ${cols} FROM campaigns WHERE id = ${id}`
  if (!raw) return undefined
  return { row: campaignRow(raw), links: (await linksOf(q, [id])).get(id)! }
}

/** Offers and landings of each campaign in the order they were given (their position column). */
async function linksOf(q: Q, ids: number[]): Promise<Map<number, CampaignLinks>> {
  const out = new Map<number, CampaignLinks>(ids.map((id) => [id, { offers: [], landings: [] }]))
  if (ids.length === 0) return out
  const os = await q`SELECT campaign_id AS "campaignId", offer_id AS "offerId", weight FROM campaign_offers
    WHERE campaign_id = ANY(${ids}::int[]) ORDER BY campaign_id, position, offer_id`
  for (const o of os) out.get(o.campaignId)!.offers.push({ offerId: o.offerId, weight: o.weight })
  const ls = await q`SELECT campaign_id AS "campaignId", landing_id AS "landingId", weight FROM campaign_landings
    WHERE campaign_id = ANY(${ids}::int[]) ORDER BY campaign_id, position, landing_id`
  for (const l of ls) out.get(l.campaignId)!.landings.push({ landingId: l.landingId, weight: l.weight })
  return out
}

/**
 * Referenced rows must exist; FOR SHARE keeps them from being deleted until this transaction commits (a
 * concurrent delete waits, then finds the campaign that uses them). Locks are taken in id order so two
 * campaign writes sharing offers cannot deadlock.
 */
async function checkReferences(tx: TransactionSQL, sourceId: number | null | undefined, links: LinkChanges): Promise<void> {
  if (sourceId != null && (await tx`SELECT id FROM sources WHERE id = ${sourceId} FOR SHARE`).length === 0) throw unknownSource(sourceId)
  if (links.offers) {
    const ids = links.offers.map((o) => o.id)
    const found = ids.length ? await tx`SELECT id FROM offers WHERE id = ANY(${ids}::int[]) ORDER BY id FOR SHARE` : []
    checkFound(links.offers, new Set(found.map((r: { id: number }) => r.id)), 'offer')
  }
  if (links.landings) {
    const ids = links.landings.map((l) => l.id)
    const found = ids.length ? await tx`SELECT id FROM landings WHERE id = ANY(${ids}::int[]) ORDER BY id FOR SHARE` : []
    checkFound(links.landings, new Set(found.map((r: { id: number }) => r.id)), 'landing')
  }
}

/** A given rotation replaces the old one; one multi-row INSERT, each link with its position in the given order. */
async function replaceLinks(tx: TransactionSQL, campaignId: number, links: LinkChanges): Promise<void> {
  if (links.offers) {
    await tx`DELETE FROM campaign_offers WHERE campaign_id = ${campaignId}`
    if (links.offers.length) {
      await tx`INSERT INTO campaign_offers ${tx(links.offers.map((l, position) => ({ campaign_id: campaignId, offer_id: l.id, weight: l.weight, position })))}`
    }
  }
  if (links.landings) {
    await tx`DELETE FROM campaign_landings WHERE campaign_id = ${campaignId}`
    if (links.landings.length) {
      await tx`INSERT INTO campaign_landings ${tx(links.landings.map((l, position) => ({ campaign_id: campaignId, landing_id: l.id, weight: l.weight, position })))}`
    }
  }
}
