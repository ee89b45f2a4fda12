// PLACEHOLDER — replaced by the postback feature.
import { Elysia } from 'elysia'
import type { AppContext, Feature } from '../context'

export function postbackFeature(_ctx: AppContext): Feature {
  return { name: 'postback', routes: new Elysia({ name: 'postback' }) }
}
