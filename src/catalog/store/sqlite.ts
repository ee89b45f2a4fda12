// The catalog store on the embedded SQLite database. The async methods do synchronous work inside (bun:sqlite
// is sync); `async` turns a thrown AppError into a rejection, as a network store would give it.
import { and, asc, eq, gt, inArray, ne, sql } from 'drizzle-orm'
import type { Database, Db, RawDb, RawStatement } from '../../db/client'
import { isUniqueViolation } from '../../db/errors'
import { campaignLandings, campaignOffers, campaigns, clicks, emailLists, landings, offers, products, sources } from '../../db/schema'
import { campaignHasClicks, checkFound, missingRow, slugTaken, unknownEmailList, unknownSource, usedByCampaign, usedByProduct } from './errors'
import type { Page } from '../../lib/paging'
import type {
  Campaign, CampaignLinks, CampaignValues, CatalogStore, LandingRow, LandingValues, LinkChanges, LinkRef, OfferRow,
  OfferValues, RoutingRows, RoutingSource, SourceRow, SourceValues,
} from './types'

/** The slug check runs first for its message; the UNIQUE index still decides a race between two writers. */
function withUniqueSlug<T>(slug: string | undefined, what: 'offer' | 'landing' | 'campaign', write: () => T): T {
  try {
    return write()
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTaken(slug ?? '', what)
    throw err
  }
}

export class SqliteCatalogStore implements CatalogStore, RoutingSource {
  private readonly db: Db
  private readonly raw: RawDb
  private readonly routing: { campaigns: RawStatement; offers: RawStatement; landings: RawStatement }

  constructor(database: Database) {
    this.db = database.db
    this.raw = database.raw
    // Prepared once: the routing table is rebuilt after every catalog change.
    this.routing = {
      campaigns: this.raw.prepare(
        // Paused campaigns too when they have a fallback_url: their visitors go there.
        'SELECT id, slug, source_id AS sourceId, external_id AS externalId, active, bot_url AS botUrl, ' +
          'fallback_url AS fallbackUrl, cost_model AS costModel, cpc FROM campaigns WHERE active = 1 OR fallback_url IS NOT NULL',
      ),
      offers: this.raw.prepare(
        'SELECT co.campaign_id AS campaignId, co.offer_id AS offerId, co.weight, o.url FROM campaign_offers co JOIN offers o ON o.id = co.offer_id ORDER BY co.campaign_id, co.position',
      ),
      landings: this.raw.prepare(
        'SELECT cl.campaign_id AS campaignId, cl.landing_id AS landingId, cl.weight, l.slug, l.url, ' +
          "(l.html IS NOT NULL AND l.html <> '') AS hasHtml FROM campaign_landings cl JOIN landings l ON l.id = cl.landing_id " +
          'ORDER BY cl.campaign_id, cl.position',
      ),
    }
  }

  routingRows(): RoutingRows {
    return {
      campaigns: this.routing.campaigns.all() as RoutingRows['campaigns'],
      offers: this.routing.offers.all() as RoutingRows['offers'],
      landings: this.routing.landings.all() as RoutingRows['landings'],
    }
  }

  private tx<T>(fn: () => T): T {
    return this.raw.transaction(fn)()
  }

  // ── sources ──

  async listSources(page: Page): Promise<SourceRow[]> {
    return this.db.select().from(sources).where(gt(sources.id, page.afterId)).orderBy(asc(sources.id)).limit(page.limit + 1).all()
  }

  async findSource(id: number): Promise<SourceRow | undefined> {
    return this.sourceRow(id)
  }

  async createSource(values: SourceValues): Promise<SourceRow> {
    const now = Date.now()
    return this.db.insert(sources).values({ ...values, createdAt: now, updatedAt: now }).returning().get()
  }

  async updateSource(id: number, changes: Partial<SourceValues>): Promise<SourceRow> {
    const row = this.db.update(sources).set({ ...changes, updatedAt: Date.now() }).where(eq(sources.id, id)).returning().get()
    if (!row) throw missingRow('source')
    return row
  }

  async deleteSource(id: number): Promise<void> {
    this.tx(() => {
      if (!this.sourceRow(id)) throw missingRow('source')
      const user = this.db.select({ id: campaigns.id, slug: campaigns.slug }).from(campaigns).where(eq(campaigns.sourceId, id)).limit(1).get()
      if (user) throw usedByCampaign('source', user)
      this.db.delete(sources).where(eq(sources.id, id)).run()
    })
  }

  private sourceRow(id: number): SourceRow | undefined {
    return this.db.select().from(sources).where(eq(sources.id, id)).get()
  }

  // ── offers ──

  async listOffers(page: Page): Promise<OfferRow[]> {
    return this.db.select().from(offers).where(gt(offers.id, page.afterId)).orderBy(asc(offers.id)).limit(page.limit + 1).all()
  }

  async findOffer(id: number): Promise<OfferRow | undefined> {
    return this.offerRow(id)
  }

  async createOffer(values: OfferValues): Promise<OfferRow> {
    if (this.offerSlugTaken(values.slug)) throw slugTaken(values.slug, 'offer')
    const now = Date.now()
    return withUniqueSlug(values.slug, 'offer', () => this.db.insert(offers).values({ ...values, createdAt: now, updatedAt: now }).returning().get())
  }

  async updateOffer(id: number, changes: Partial<OfferValues>): Promise<OfferRow> {
    if (!this.offerRow(id)) throw missingRow('offer')
    if (changes.slug !== undefined && this.offerSlugTaken(changes.slug, id)) throw slugTaken(changes.slug, 'offer')
    const row = withUniqueSlug(changes.slug, 'offer', () =>
      this.db.update(offers).set({ ...changes, updatedAt: Date.now() }).where(eq(offers.id, id)).returning().get())
    if (!row) throw missingRow('offer')
    return row
  }

  async deleteOffer(id: number): Promise<void> {
    this.tx(() => {
      if (!this.offerRow(id)) throw missingRow('offer')
      const user = this.db.select({ id: campaigns.id, slug: campaigns.slug })
        .from(campaignOffers).innerJoin(campaigns, eq(campaigns.id, campaignOffers.campaignId))
        .where(eq(campaignOffers.offerId, id)).limit(1).get()
      if (user) throw usedByCampaign('offer', user)
      const product = this.db.select({ id: products.id, name: products.name }).from(products).where(eq(products.offerId, id)).limit(1).get()
      if (product) throw usedByProduct(product)
      this.db.delete(offers).where(eq(offers.id, id)).run()
    })
  }

  private offerRow(id: number): OfferRow | undefined {
    return this.db.select().from(offers).where(eq(offers.id, id)).get()
  }

  private offerSlugTaken(slug: string, exceptId = 0): boolean {
    return this.db.select({ id: offers.id }).from(offers).where(and(eq(offers.slug, slug), ne(offers.id, exceptId))).get() !== undefined
  }

  // ── landings ──

  async listLandings(page: Page): Promise<LandingRow[]> {
    return this.db.select().from(landings).where(gt(landings.id, page.afterId)).orderBy(asc(landings.id)).limit(page.limit + 1).all()
  }

  async findLanding(id: number): Promise<LandingRow | undefined> {
    return this.landingRow(id)
  }

  async findLandingBySlug(slug: string): Promise<LandingRow | undefined> {
    return this.db.select().from(landings).where(eq(landings.slug, slug)).get()
  }

  async createLanding(values: LandingValues): Promise<LandingRow> {
    return this.tx(() => {
      if (this.landingSlugTaken(values.slug)) throw slugTaken(values.slug, 'landing')
      this.checkEmailList(values.emailListId)
      const now = Date.now()
      return withUniqueSlug(values.slug, 'landing', () => this.db.insert(landings).values({ ...values, createdAt: now, updatedAt: now }).returning().get())
    })
  }

  async updateLanding(id: number, changes: Partial<LandingValues>): Promise<LandingRow> {
    return this.tx(() => {
      if (!this.landingRow(id)) throw missingRow('landing')
      if (changes.slug !== undefined && this.landingSlugTaken(changes.slug, id)) throw slugTaken(changes.slug, 'landing')
      this.checkEmailList(changes.emailListId)
      const row = withUniqueSlug(changes.slug, 'landing', () =>
        this.db.update(landings).set({ ...changes, updatedAt: Date.now() }).where(eq(landings.id, id)).returning().get())
      if (!row) throw missingRow('landing')
      return row
    })
  }

  /** The list a landing enrols its leads into must exist (checked in the write's transaction). */
  private checkEmailList(id: number | null | undefined): void {
    if (id == null) return
    if (!this.db.select({ id: emailLists.id }).from(emailLists).where(eq(emailLists.id, id)).get()) throw unknownEmailList(id)
  }

  async deleteLanding(id: number): Promise<void> {
    this.tx(() => {
      if (!this.landingRow(id)) throw missingRow('landing')
      const user = this.db.select({ id: campaigns.id, slug: campaigns.slug })
        .from(campaignLandings).innerJoin(campaigns, eq(campaigns.id, campaignLandings.campaignId))
        .where(eq(campaignLandings.landingId, id)).limit(1).get()
      if (user) throw usedByCampaign('landing', user)
      this.db.delete(landings).where(eq(landings.id, id)).run()
    })
  }

  private landingRow(id: number): LandingRow | undefined {
    return this.db.select().from(landings).where(eq(landings.id, id)).get()
  }

  private landingSlugTaken(slug: string, exceptId = 0): boolean {
    return this.db.select({ id: landings.id }).from(landings).where(and(eq(landings.slug, slug), ne(landings.id, exceptId))).get() !== undefined
  }

  // ── campaigns ──

  async listCampaigns(page: Page): Promise<Campaign[]> {
    const rows = this.db.select().from(campaigns).where(gt(campaigns.id, page.afterId)).orderBy(asc(campaigns.id)).limit(page.limit + 1).all()
    const links = this.linksOf(rows.map((r) => r.id))
    return rows.map((row) => ({ row, links: links.get(row.id)! }))
  }

  async findCampaign(id: number): Promise<Campaign | undefined> {
    return this.campaign(id)
  }

  async createCampaign(values: CampaignValues, links: Required<LinkChanges>): Promise<Campaign> {
    return withUniqueSlug(values.slug, 'campaign', () => this.tx(() => {
      this.checkReferences(values.sourceId, links)
      if (this.campaignSlugTaken(values.slug)) throw slugTaken(values.slug, 'campaign')
      const now = Date.now()
      const row = this.db.insert(campaigns).values({ ...values, createdAt: now, updatedAt: now }).returning().get()
      this.replaceLinks(row.id, links)
      return this.campaign(row.id)!
    }))
  }

  async updateCampaign(id: number, changes: Partial<CampaignValues>, links: LinkChanges): Promise<Campaign> {
    return withUniqueSlug(changes.slug, 'campaign', () => this.tx(() => {
      if (!this.campaign(id)) throw missingRow('campaign')
      this.checkReferences(changes.sourceId, links)
      if (changes.slug !== undefined && this.campaignSlugTaken(changes.slug, id)) throw slugTaken(changes.slug, 'campaign')
      this.db.update(campaigns).set({ ...changes, updatedAt: Date.now() }).where(eq(campaigns.id, id)).run()
      this.replaceLinks(id, links)
      return this.campaign(id)!
    }))
  }

  async deleteCampaign(id: number): Promise<void> {
    this.tx(() => {
      if (!this.campaign(id)) throw missingRow('campaign')
      // Clicks point at campaigns without a foreign key; this read of the click table is the one place the
      // catalog looks at tracking data, and it has to sit in this transaction.
      if (this.db.select({ id: clicks.id }).from(clicks).where(eq(clicks.campaignId, id)).limit(1).get()) {
        throw campaignHasClicks()
      }
      // campaign_offers and campaign_landings rows go with it (ON DELETE CASCADE).
      this.db.delete(campaigns).where(eq(campaigns.id, id)).run()
    })
  }

  private campaign(id: number): Campaign | undefined {
    const row = this.db.select().from(campaigns).where(eq(campaigns.id, id)).get()
    return row && { row, links: this.linksOf([id]).get(id)! }
  }

  private campaignSlugTaken(slug: string, exceptId = 0): boolean {
    return this.db.select({ id: campaigns.id }).from(campaigns).where(and(eq(campaigns.slug, slug), ne(campaigns.id, exceptId))).get() !== undefined
  }

  /** Offers and landings of each campaign, in the order they were given (position; rowid breaks ties of seeded rows). */
  private linksOf(ids: number[]): Map<number, CampaignLinks> {
    const out = new Map<number, CampaignLinks>(ids.map((id) => [id, { offers: [], landings: [] }]))
    if (ids.length === 0) return out
    const os = this.db.select().from(campaignOffers).where(inArray(campaignOffers.campaignId, ids)).orderBy(campaignOffers.campaignId, campaignOffers.position, sql`rowid`).all()
    for (const o of os) out.get(o.campaignId)!.offers.push({ offerId: o.offerId, weight: o.weight })
    const ls = this.db.select().from(campaignLandings).where(inArray(campaignLandings.campaignId, ids)).orderBy(campaignLandings.campaignId, campaignLandings.position, sql`rowid`).all()
    for (const l of ls) out.get(l.campaignId)!.landings.push({ landingId: l.landingId, weight: l.weight })
    return out
  }

  /** Referenced rows must exist; checked inside the write transaction so nothing is deleted in between. */
  private checkReferences(sourceId: number | null | undefined, links: LinkChanges): void {
    if (sourceId != null && !this.sourceRow(sourceId)) throw unknownSource(sourceId)
    if (links.offers) {
      const ids = links.offers.map((o) => o.id)
      const found = new Set(ids.length ? this.db.select({ id: offers.id }).from(offers).where(inArray(offers.id, ids)).all().map((r) => r.id) : [])
      checkFound(links.offers, found, 'offer')
    }
    if (links.landings) {
      const ids = links.landings.map((l) => l.id)
      const found = new Set(ids.length ? this.db.select({ id: landings.id }).from(landings).where(inArray(landings.id, ids)).all().map((r) => r.id) : [])
      checkFound(links.landings, found, 'landing')
    }
  }

  private replaceLinks(campaignId: number, links: LinkChanges): void {
    if (links.offers) {
      this.db.delete(campaignOffers).where(eq(campaignOffers.campaignId, campaignId)).run()
      if (links.offers.length) this.db.insert(campaignOffers).values(links.offers.map((l, position) => ({ campaignId, offerId: l.id, weight: l.weight, position }))).run()
    }
    if (links.landings) {
      this.db.delete(campaignLandings).where(eq(campaignLandings.campaignId, campaignId)).run()
      if (links.landings.length) this.db.insert(campaignLandings).values(links.landings.map((l, position) => ({ campaignId, landingId: l.id, weight: l.weight, position }))).run()
    }
  }
}

