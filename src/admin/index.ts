// PLACEHOLDER — replaced by the admin feature.
import { Elysia } from 'elysia'
import type { AppContext, Feature } from '../context'

export function adminFeature(_ctx: AppContext): Feature {
  return { name: 'admin', routes: new Elysia({ name: 'admin' }) }
}
