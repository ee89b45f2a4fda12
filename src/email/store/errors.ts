// The email stores' errors, shared by both engines so every code and message is the same on each.
import { conflict, notFound } from '../../lib/errors'

export const listNotFound = () => notFound('email list not found')
export const subscriberNotFound = () => notFound('subscriber not found')
/** conflict when deleting a list a product's buyers join (its post-purchase automation). */
export const listUsedByProduct = (product: { id: number; name: string }) =>
  conflict(`email list is used by product "${product.name}" (id ${product.id}); change the product's email_list_id first`)
/** conflict when deleting a list a landing enrols its leads into. */
export const listUsedByLanding = (landing: { id: number; slug: string }) =>
  conflict(`email list is used by landing "${landing.slug}" (id ${landing.id})`)
