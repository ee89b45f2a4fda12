// A campaign's paths in order: the first whose conditions hold takes the visitor; none → null, the
// campaign's default rotation. This module only picks the path; what its action does is the tracker's.
import { compileConditions, explain, type Explanation, type Predicate, type RuleContext } from './compile'
import type { Condition } from './model'

/** What a path does with the visitor it takes (issue 28, "Actions"). */
export type PathAction =
  /** The path's own weighted offers and landings, the same rotation as the campaign's. */
  | { type: 'rotation'; offers: ReadonlyArray<{ offer_id: number; weight: number }>; landings: ReadonlyArray<{ landing_id: number; weight: number }> }
  /** A direct URL template ({click_id}, {sub1}… as offer URLs have them). */
  | { type: 'url'; url: string }
  /** The campaign's bot URL. */
  | { type: 'bot_url' }
  /** The HTML 404, or the fallback URL when one is set. */
  | { type: 'not_found' }

export type PathActionType = PathAction['type']

/** A path as it is stored: its conditions (checked by checkConditions) and its action. */
export interface PathSpec<A = PathAction> {
  readonly id: number
  readonly conditions: readonly Condition[]
  readonly action: A
}

/**
 * A path ready for the click path. `A` is whatever the routing cache resolves the action into (a Rotation
 * built once, say), so the tracker reads it without a second lookup.
 */
export interface CompiledPath<A = PathAction> {
  readonly id: number
  readonly matches: Predicate
  readonly action: A
}

/** Compiles a stored path's conditions once; `action` as the routing cache resolved it. */
export function compilePath<A>(id: number, conditions: readonly Condition[], action: A): CompiledPath<A> {
  return { id, matches: compileConditions(conditions), action }
}

/** The first path whose conditions hold, or null (the default rotation). */
export function firstMatch<A>(paths: ReadonlyArray<CompiledPath<A>>, ctx: RuleContext): CompiledPath<A> | null {
  for (let i = 0; i < paths.length; i++) if (paths[i]!.matches(ctx)) return paths[i]!
  return null
}

export interface PathTrace {
  /** The path that took the visitor, or null: the default rotation. */
  matched: number | null
  /** The paths tried, in order, up to and including the one that took the visitor. */
  paths: Array<{ id: number; outcome: boolean; conditions: Explanation[] }>
}

/** Why the visitor went where he went: each path tried, each condition's outcome (the simulator and the click lookup). */
export function tracePaths(paths: ReadonlyArray<PathSpec<unknown>>, ctx: RuleContext): PathTrace {
  const out: PathTrace = { matched: null, paths: [] }
  for (const p of paths) {
    const conditions = explain(p.conditions, ctx)
    const outcome = conditions.every((e) => e.outcome)
    out.paths.push({ id: p.id, outcome, conditions })
    if (outcome) {
      out.matched = p.id
      break
    }
  }
  return out
}
