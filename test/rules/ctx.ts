// A visitor for rule tests: an ordinary desktop Chrome visit from Germany, changed field by field.
import { checkConditions, compileConditions, explain, type RuleContext, type RuleQuery } from '../../src/rules'

export const NOW = Date.UTC(2025, 5, 11, 12, 0) // Wednesday 2025-06-11 12:00 UTC

export function query(q: Record<string, string> = {}): RuleQuery {
  const subs: Array<string | null> = [null, null, null, null, null, null, null, null, null, null]
  let params: Record<string, string> | null = null
  let clickId: string | null = null
  for (const [k, v] of Object.entries(q)) {
    const m = /^sub([1-9]|10)$/.exec(k)
    if (m) subs[Number(m[1]) - 1] = v
    else if (k === 'click_id') clickId = v
    else (params ??= Object.create(null) as Record<string, string>)[k] = v
  }
  return { subs, params, clickId }
}

export function ctx(over: Partial<RuleContext> = {}): RuleContext {
  return {
    country: 'DE', region: 'Berlin', city: 'Berlin', asn: 3320, as_org: 'Deutsche Telekom AG', connection: 'residential',
    device: 'desktop', os: 'Windows', os_version: '10', browser: 'Chrome', browser_version: '126', language: 'de',
    referrer_domain: 'news.example.com', ip: '93.184.216.34', query: query(), now: NOW, unique: true, bot: false,
    ...over,
  }
}

/** Whether checked conditions hold for a visitor, asserting that explain() agrees with the predicate. */
export function holds(conditions: unknown, c: RuleContext): boolean {
  const checked = checkConditions(conditions)
  const outcome = compileConditions(checked)(c)
  const byExplain = explain(checked, c).every((e) => e.outcome)
  if (byExplain !== outcome) throw new Error(`explain() says ${byExplain}, the predicate ${outcome}: ${JSON.stringify(conditions)}`)
  return outcome
}

/** One condition, IS and IS NOT: [holds, holds when negated]. */
export function both(condition: Record<string, unknown>, c: RuleContext): [boolean, boolean] {
  return [holds([condition], c), holds([{ ...condition, negate: true }], c)]
}
