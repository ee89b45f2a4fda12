// The catalog's write rules, once for both engines: step generators (lib/steps.ts) that the store runs inside
// one transaction with its queries (store.ts), so each check holds until its write commits. On Postgres the
// rows a check relies on are locked: a delete takes FOR UPDATE on the row it removes, a write FOR SHARE on
// what it links; whichever comes second waits and sees the other's committed result (never a foreign-key
// error). SQLite has one writer, so the checks alone suffice.
import type { MaybeAsync, Steps } from '../../lib/steps'
import {
  campaignHasClicks, checkFound, missingRow, slugTaken, unknownEmailList, unknownSource, usedByCampaign, usedByProduct,
  type Entity, type Slugged,
} from './errors'
import { invalid } from '../../lib/errors'
import { fallbackOfferOf } from '../caps/model'
import type { CampaignValues, LinkChanges, LinkRef, PathWrite } from './types'

export type Values = Record<string, unknown>
type Found = { id: number } | undefined
type Used = 'source' | 'offer' | 'landing'
export type LinkKind = 'offers' | 'landings'

/** The queries the rules run, bound to their transaction. */
export interface CatalogQueries {
  /** The row, when it exists; `lock` keeps it FOR UPDATE until commit (Postgres). */
  exists(what: Entity, id: number, lock?: boolean): MaybeAsync<Found>
  /** Another row of the kind that holds the slug. */
  slugHolder(what: Slugged, slug: string, exceptId: number): MaybeAsync<Found>
  /** The campaign with the lowest id that uses the row (so both engines name the same one in the 409). */
  campaignUsing(what: Used, id: number): MaybeAsync<{ id: number; slug: string } | undefined>
  productUsing(offerId: number): MaybeAsync<{ id: number; name: string } | undefined>
  anyClick(campaignId: number): MaybeAsync<Found>
  /** Those of the ids that exist, locked FOR SHARE in id order (two campaign writes cannot deadlock). */
  shared(table: 'sources' | 'offers' | 'landings' | 'email_lists' | 'rule_sets', ids: number[]): MaybeAsync<Array<{ id: number }>>
  insert(what: Entity, values: Values): MaybeAsync<Values>
  update(what: Entity, id: number, changes: Values): MaybeAsync<Values | undefined>
  delete(what: Entity, id: number): MaybeAsync<number>
  clearLinks(kind: LinkKind, campaignId: number): MaybeAsync<number>
  addLinks(kind: LinkKind, campaignId: number, refs: LinkRef[]): MaybeAsync<number>
  /** The ids of the campaign's paths. */
  pathIds(campaignId: number): MaybeAsync<Array<{ id: number }>>
  /** Deletes the campaign's paths whose ids are not in `keep` (their rotations go with them). */
  dropPaths(campaignId: number, keep: number[]): MaybeAsync<number>
  /** Inserts or updates (p.id) the path at `position`; returns its id. Its rotations are written apart. */
  savePath(campaignId: number, p: PathWrite, position: number): MaybeAsync<{ id: number } | undefined>
  clearPathLinks(kind: LinkKind, pathId: number): MaybeAsync<number>
  addPathLinks(kind: LinkKind, pathId: number, refs: LinkRef[]): MaybeAsync<number>
}

/** A source, offer or landing: a free slug, an existing email list (landings), then the insert. */
export function* createSteps(q: CatalogQueries, what: Exclude<Entity, 'campaign'>, values: Values, now: number): Steps<Values> {
  if (what !== 'source') yield* slugFree(q, what, values.slug as string, 0)
  if (what === 'landing') yield* emailListExists(q, values.emailListId as number | null | undefined)
  if (what === 'offer') yield* fallbackOfferExists(q, values.cap)
  return yield q.insert(what, { ...values, createdAt: now, updatedAt: now })
}

/** Exists → a free slug → an existing email list (landings) → the update. */
export function* updateSteps(q: CatalogQueries, what: Exclude<Entity, 'campaign'>, id: number, changes: Values, now: number): Steps<Values> {
  if (what !== 'source') {
    const row: Found = yield q.exists(what, id)
    if (!row) throw missingRow(what)
    if (changes.slug !== undefined) yield* slugFree(q, what, changes.slug as string, id)
  }
  if (what === 'landing') yield* emailListExists(q, changes.emailListId as number | null | undefined)
  if (what === 'offer') yield* fallbackOfferExists(q, changes.cap)
  const row: Values | undefined = yield q.update(what, id, { ...changes, updatedAt: now })
  if (!row) throw missingRow(what)
  return row
}

/**
 * A campaign row and its rotations (id null: a new one): it exists (locked), what it references exists, its
 * slug is free; a given rotation replaces the old one. Returns the campaign's id.
 */
export function* campaignSteps(q: CatalogQueries, id: number | null, values: Partial<CampaignValues>, links: LinkChanges, now: number): Steps<number> {
  if (id !== null) {
    const row: Found = yield q.exists('campaign', id, true)
    if (!row) throw missingRow('campaign')
  }
  yield* referencesExist(q, values.sourceId, links)
  if (values.slug !== undefined) yield* slugFree(q, 'campaign', values.slug, id ?? 0)
  if (id === null) {
    const row: Values = yield q.insert('campaign', { ...values, createdAt: now, updatedAt: now })
    id = row.id as number
  } else {
    yield q.update('campaign', id, { ...values, updatedAt: now })
  }
  for (const kind of ['offers', 'landings'] as const) {
    const refs = links[kind]
    if (!refs) continue
    yield q.clearLinks(kind, id)
    if (refs.length) yield q.addLinks(kind, id, refs)
  }
  if (links.paths) yield* pathSteps(q, id, links.paths)
  return id
}

/**
 * The campaign's paths replaced by `paths`, in order: a given id must be one of its paths (kept, so its clicks
 * and report rows keep their path); paths left out are deleted. Rule sets, offers and landings they name exist
 * (FOR SHARE, as for the campaign's own rotation).
 */
function* pathSteps(q: CatalogQueries, campaignId: number, paths: PathWrite[]): Steps<void> {
  const own: Array<{ id: number }> = yield q.pathIds(campaignId)
  const ids = new Set(own.map((r) => Number(r.id)))
  for (const p of paths) {
    if (p.id !== null && !ids.has(p.id)) throw invalid(`${p.field}.id: path ${p.id} is not a path of this campaign (leave id out for a new path)`)
  }
  const ruleSets = paths.filter((p) => p.ruleSetId !== null).map((p) => ({ id: p.ruleSetId!, weight: 0, field: `${p.field}.rule_set_id` }))
  if (ruleSets.length) {
    const found: Array<{ id: number }> = yield q.shared('rule_sets', [...new Set(ruleSets.map((r) => r.id))])
    checkFound(ruleSets, new Set(found.map((r) => Number(r.id))), 'rule set')
  }
  for (const [kind, what] of [['offers', 'offer'], ['landings', 'landing']] as const) {
    const refs = withFallbacks(kind, paths.flatMap((p) => p[kind]))
    if (!refs.length) continue
    const found: Array<{ id: number }> = yield q.shared(kind, [...new Set(refs.map((r) => r.id))])
    checkFound(refs, new Set(found.map((r) => Number(r.id))), what)
  }
  yield q.dropPaths(campaignId, paths.flatMap((p) => (p.id === null ? [] : [p.id])))
  for (const [position, p] of paths.entries()) {
    const saved: { id: number } | undefined = yield q.savePath(campaignId, p, position)
    const pathId = Number(saved!.id)
    for (const kind of ['offers', 'landings'] as const) {
      if (p.id !== null) yield q.clearPathLinks(kind, pathId)
      if (p[kind].length) yield q.addPathLinks(kind, pathId, p[kind])
    }
  }
}

/**
 * Exists → used by → delete. A campaign goes only without clicks (its history would be orphaned; clicks point
 * at it without a foreign key, so this is the one place the catalog reads tracking data); its rotations go
 * with it (ON DELETE CASCADE). Another instance may still record a click until its routing table drops the
 * campaign (catalog.changed), as a click in flight on SQLite may; the check covers every committed click.
 */
export function* removeSteps(q: CatalogQueries, what: Entity, id: number): Steps<void> {
  const row: Found = yield q.exists(what, id, true)
  if (!row) throw missingRow(what)
  if (what === 'campaign') {
    const click: Found = yield q.anyClick(id)
    if (click) throw campaignHasClicks()
  } else {
    const user: { id: number; slug: string } | undefined = yield q.campaignUsing(what, id)
    if (user) throw usedByCampaign(what, user)
    if (what === 'offer') {
      const product: { id: number; name: string } | undefined = yield q.productUsing(id)
      if (product) throw usedByProduct(product)
    }
  }
  yield q.delete(what, id)
}

/** The slug check runs first for its message; the UNIQUE index still decides a race (the store maps it). */
function* slugFree(q: CatalogQueries, what: Slugged, slug: string, exceptId: number): Steps<void> {
  const holder: Found = yield q.slugHolder(what, slug, exceptId)
  if (holder) throw slugTaken(slug, what)
}

/** The list a landing enrols its leads into must exist (kept FOR SHARE: a list delete waits, then sees this landing). */
function* emailListExists(q: CatalogQueries, id: number | null | undefined): Steps<void> {
  if (id == null) return
  const found: Array<{ id: number }> = yield q.shared('email_lists', [id])
  if (found.length === 0) throw unknownEmailList(id)
}

/** Referenced rows exist, and stay until this write commits (a concurrent delete waits, then finds the campaign). */
/** Offer entries and the fallback offers their caps name (`offers.0.cap.fallback_offer_id`), for one existence check. */
function withFallbacks(kind: LinkKind, refs: LinkRef[]): LinkRef[] {
  if (kind !== 'offers') return refs
  const out = [...refs]
  for (const r of refs) {
    const id = fallbackOfferOf(r.cap)
    if (id !== null) out.push({ id, weight: 0, field: r.field.replace(/offer_id$/, 'cap.fallback_offer_id') })
  }
  return out
}

/** An offer's own cap may send its visitors to another offer: it must exist. */
function* fallbackOfferExists(q: CatalogQueries, cap: unknown): Steps<void> {
  const id = fallbackOfferOf(cap as string | null | undefined)
  if (id === null) return
  const found: Array<{ id: number }> = yield q.shared('offers', [id])
  checkFound([{ id, weight: 0, field: 'cap.fallback_offer_id' }], new Set(found.map((r) => Number(r.id))), 'offer')
}

function* referencesExist(q: CatalogQueries, sourceId: number | null | undefined, links: LinkChanges): Steps<void> {
  if (sourceId != null) {
    const found: Array<{ id: number }> = yield q.shared('sources', [sourceId])
    if (found.length === 0) throw unknownSource(sourceId)
  }
  for (const [kind, what] of [['offers', 'offer'], ['landings', 'landing']] as const) {
    const refs = withFallbacks(kind, links[kind] ?? [])
    if (!refs.length) continue
    const found: Array<{ id: number }> = yield q.shared(kind, refs.map((r) => r.id))
    checkFound(refs, new Set(found.map((r) => Number(r.id))), what)
  }
}
