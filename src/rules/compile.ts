// Conditions compiled once into predicates (sets, CIDR tables, regexes and zone clocks built ahead), so a
// click's evaluation is lookups and comparisons, and explained by the same compiled nodes, so the trace of
// the simulator and of the click lookup cannot disagree with the decision it explains.
//
// Compiling takes checked conditions (check.ts). It never throws: what the running server cannot evaluate
// although it passed the check when saved (a time zone or regex this build does not know) never holds,
// and its explanation says so.
import type { Predicate, RuleContext } from './context'
import type { Condition, ConditionType } from './model'
import { leaf, type Node } from './nodes'

export type { Predicate, RuleContext, RuleQuery } from './context'

export interface Explanation {
  /** Position in the path's conditions (in a group: in the group). */
  index: number
  type: ConditionType
  negate: boolean
  /** Whether the condition holds, IS NOT applied. */
  outcome: boolean
  /** What the visitor has and how it compares, before IS NOT. */
  detail: string
  /** A group's conditions. */
  conditions?: Explanation[]
}

const ALWAYS: Predicate = () => true

const negated = (p: Predicate, negate: boolean | undefined): Predicate => (negate === true ? (x) => !p(x) : p)

function all(ps: Predicate[]): Predicate {
  if (ps.length === 0) return ALWAYS
  if (ps.length === 1) return ps[0]!
  if (ps.length === 2) { const [a, b] = ps as [Predicate, Predicate]; return (x) => a(x) && b(x) }
  return (x) => {
    for (let i = 0; i < ps.length; i++) if (!ps[i]!(x)) return false
    return true
  }
}

function node(c: Condition): Node {
  if (c.type !== 'group') return leaf(c)
  const kids = c.all.map(leaf)
  const test = all(kids.map((k, i) => negated(k.test, c.all[i]!.negate)))
  return { test, describe: (x) => (test(x) ? `all ${kids.length} hold` : 'not all hold') }
}

/** The path's conditions as one predicate (all must hold; none = every visitor). */
export function compileConditions(conditions: readonly Condition[]): Predicate {
  return all(conditions.map((c) => negated(node(c).test, c.negate)))
}

/** Each condition's outcome for a visitor, every one evaluated (not only up to the first that fails). */
export function explain(conditions: readonly Condition[], ctx: RuleContext): Explanation[] {
  return conditions.map((c, index) => {
    const n = node(c)
    const raw = n.test(ctx)
    const e: Explanation = { index, type: c.type, negate: c.negate === true, outcome: c.negate === true ? !raw : raw, detail: n.describe(ctx) }
    if (c.type === 'group') e.conditions = explain(c.all, ctx)
    return e
  })
}

const FIELDS: Record<Exclude<ConditionType, 'group'>, readonly (keyof RuleContext)[]> = {
  country: ['country'], region: ['region'], city: ['city'], asn: ['asn'], as_org: ['as_org'], connection: ['connection'],
  device: ['device'], os: ['os', 'os_version'], browser: ['browser', 'browser_version'], language: ['language'],
  referrer_domain: ['referrer_domain'], ip: ['ip'], param: ['query'], time: ['now'], unique: ['unique'], bot: ['bot'],
}

/** The RuleContext fields these conditions read (so the tracker can skip computing the others). */
export function fieldsUsed(conditions: readonly Condition[], into = new Set<keyof RuleContext>()): Set<keyof RuleContext> {
  for (const c of conditions) {
    if (c.type === 'group') fieldsUsed(c.all, into)
    else for (const f of FIELDS[c.type]) into.add(f)
  }
  return into
}
