// The catalog stores' errors, shared by both engines so every AppError code and message is the same on
// SQLite and Postgres (the HTTP/MCP surfaces and their tests see these strings verbatim).
import { conflict, invalid, notFound } from '../../lib/errors'
import type { LinkRef } from './types'

export type Entity = 'source' | 'offer' | 'landing' | 'campaign'
export type Slugged = 'offer' | 'landing' | 'campaign'

/** not_found "<entity> not found". */
export const missingRow = (what: Entity) => notFound(`${what} not found`)

/** conflict when another row of the same kind has the slug. */
export const slugTaken = (slug: string, what: Slugged) => conflict(`slug: "${slug}" is already used by another ${what}`)

/** conflict when deleting a source, offer or landing a campaign still uses. */
export const usedByCampaign = (what: 'source' | 'offer' | 'landing', user: { id: number; slug: string }) =>
  conflict(`${what} is used by campaign "${user.slug}" (id ${user.id})`)

/** conflict when deleting an offer a native product still converts on. */
export const usedByProduct = (user: { id: number; name: string }) =>
  conflict(`offer is used by product "${user.name}" (id ${user.id}); change the product's offer_id first`)

/** conflict when deleting a campaign that has clicks (its history would be orphaned). */
export const campaignHasClicks = () => conflict('campaign has clicks; set active=false instead')

/** invalid when a landing names an email list that does not exist. */
export const unknownEmailList = (id: number) => invalid(`email_list_id: email list ${id} does not exist`)

/** invalid when a campaign names a source that does not exist. */
export const unknownSource = (id: number) => invalid(`source_id: source ${id} does not exist`)

/** conflict when deleting a rule set a campaign's path still uses. */
export const ruleSetInUse = (user: { id: number; slug: string }) =>
  conflict(`rule set is used by a path of campaign "${user.slug}" (id ${user.id}); remove it from the path first`)

/** invalid naming the first linked offer or landing that is not among the ids found. */
export function checkFound(refs: LinkRef[], found: Set<number>, what: 'offer' | 'landing' | 'rule set'): void {
  const gone = refs.find((r) => !found.has(r.id))
  if (gone) throw invalid(`${gone.field}: ${what} ${gone.id} does not exist`)
}
