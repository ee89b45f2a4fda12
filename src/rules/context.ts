// What a visitor has at redirect time, as the rules read it. Tracking fills one per click (only the fields
// fieldsUsed() names need real values); the simulator fills one from its request.
import type { Connection } from '../lib/geoip'
import type { RuleDevice } from './model'

/** The query of a visit, as tracking/visitor.ts parses it (VisitQuery fits). */
export interface RuleQuery {
  /** sub1..sub10 at 0..9; null when absent. */
  readonly subs: ReadonlyArray<string | null>
  /** Every other parameter; null when there is none. */
  readonly params: Readonly<Record<string, string>> | null
  readonly clickId?: string | null
}

/** What a visitor has at redirect time. Unknown values are null; names and codes as tracking produces them. */
export interface RuleContext {
  /** ISO 3166-1 alpha-2, upper case. */
  readonly country: string | null
  readonly region: string | null
  readonly city: string | null
  readonly asn: number | null
  readonly as_org: string | null
  readonly connection: Connection
  readonly device: RuleDevice
  readonly os: string | null
  /** Major version as tracking/quality/user-agent.ts reports it ('17'; Windows: 'XP', 'Vista', '7', '8.1', '10'). */
  readonly os_version: string | null
  readonly browser: string | null
  readonly browser_version: string | null
  /** Primary tag of Accept-Language's first entry, lower case. */
  readonly language: string | null
  /** As referrerDomain() gives it: lower case, without "www.". */
  readonly referrer_domain: string | null
  readonly ip: string
  readonly query: RuleQuery
  /** Epoch ms of the click. */
  readonly now: number
  readonly unique: boolean
  readonly bot: boolean
}

export type Predicate = (ctx: RuleContext) => boolean
