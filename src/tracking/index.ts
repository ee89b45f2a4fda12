// PLACEHOLDER — replaced by the tracking feature.
import { Elysia } from 'elysia'
import type { AppContext, Feature } from '../context'

export function trackingFeature(_ctx: AppContext): Feature {
  return { name: 'tracking', routes: new Elysia({ name: 'tracking' }) }
}
