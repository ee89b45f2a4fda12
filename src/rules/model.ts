// The conditions of a campaign path, as stored and as the API takes them (issue 28, "Rules: who goes where").
// Within one condition its list is an OR; `negate` turns IS into IS NOT; a path's conditions are an AND.
//
// Why a negatable group of one level (`{type:'group', negate:true, all:[…]}`) and no `any` or deeper
// nesting: a group is an AND, and NOT(AND of negated conditions) is their OR, so one level of groups
// makes a path any AND of ORs (conjunctive normal form), which expresses every boolean combination, while
// the editor and the trace stay flat enough to read; alternatives between whole rule sets are paths.
import { Type as t, type Static, type TSchema } from '@sinclair/typebox'
import { Int } from '../lib/fields'
import type { Connection } from '../lib/geoip'

/** Conditions per path, counting those inside groups (a group itself does not count). */
export const MAX_CONDITIONS = 20
/** Items in one condition's list. */
export const MAX_VALUES = 500
/** Characters of one list item (a name, a domain, a parameter value). */
export const MAX_VALUE_LENGTH = 256
/** Characters of a `param` regex. */
export const MAX_REGEX_LENGTH = 200
/** Paths a campaign may have before its default rotation (for the wiring's input schema). */
export const MAX_PATHS = 50

/** Device types as tracking/quality/user-agent.ts names them (test/rules/model.test.ts holds them equal). */
export const DEVICES = ['desktop', 'mobile', 'tablet', 'bot', 'unknown'] as const
export type RuleDevice = (typeof DEVICES)[number]
export const CONNECTION_TYPES = ['hosting', 'residential', 'unknown'] as const satisfies readonly Connection[]
export const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const
export type Day = (typeof DAYS)[number]
export const PARAM_OPS = ['equals', 'in', 'prefix', 'regex', 'empty', 'missing'] as const
export const VERSION_OPS = ['eq', 'gte', 'lte'] as const

const negate = t.Optional(t.Boolean({ description: 'true = IS NOT: the condition holds when its test fails' }))
const text = (description: string) => t.String({ minLength: 1, maxLength: MAX_VALUE_LENGTH, description })
const list = <T extends TSchema>(item: T, description: string) =>
  t.Array(item, { minItems: 1, maxItems: MAX_VALUES, description })
const strict = { additionalProperties: false } as const
const lit = <const L extends string>(values: readonly L[]) => t.Union(values.map((v) => t.Literal(v)))
/** A major version as tracking reports it: '17', '120', Windows by name ('XP', 'Vista', '7', '8', '8.1', '10'). */
export const VERSION_PATTERN = '^(?:\\d{1,6}(?:\\.\\d{1,3})?|[Xx][Pp]|[Vv][Ii][Ss][Tt][Aa])$'
const version = t.Optional(t.Object({
  op: lit(VERSION_OPS),
  value: t.Union([Int({ minimum: 0, maximum: 999999 }), t.String({ pattern: VERSION_PATTERN })], { description: "major version: 17, '8.1', 'XP', 'Vista'" }),
}, { ...strict, description: 'compares the major version (Windows XP < Vista < 7 < 8 < 8.1 < 10); an unknown version never satisfies it' }))

const listCondition = <T extends string, I extends TSchema>(type: T, item: I, description: string) =>
  t.Object({ type: t.Literal(type), negate, values: list(item, description) }, strict)

/** One schema per type; `type` picks the schema (checkConditions reports the errors of that one only). */
export const CONDITION_SCHEMAS = {
  country: listCondition('country', t.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2' }), 'any of these countries'),
  region: listCondition('region', text('region name, case-insensitive'), 'any of these regions (city database only)'),
  city: listCondition('city', text('city name, case-insensitive'), 'any of these cities (city database only)'),
  asn: listCondition('asn', Int({ minimum: 1, maximum: 4294967295 }), 'any of these autonomous system numbers'),
  as_org: listCondition('as_org', text('part of the network name, case-insensitive'), 'the network name contains any of these'),
  connection: listCondition('connection', lit(CONNECTION_TYPES), 'any of these connection types'),
  device: listCondition('device', lit(DEVICES), 'any of these device types'),
  os: t.Object({ type: t.Literal('os'), negate, values: list(text('OS name, case-insensitive (iOS, Android, Windows, macOS…)'), 'any of these'), version }, strict),
  browser: t.Object({ type: t.Literal('browser'), negate, values: list(text('browser name, case-insensitive (Chrome, Safari, Facebook…)'), 'any of these'), version }, strict),
  language: listCondition('language', t.String({ pattern: '^[A-Za-z]{2,3}$', description: 'primary language tag (en, de, pt)' }), 'any of these languages (Accept-Language, first tag)'),
  referrer_domain: listCondition('referrer_domain', text('a domain, or *.domain for its subdomains'), 'any of these referrer domains'),
  ip: listCondition('ip', t.String({ minLength: 1, maxLength: 64, description: 'an IPv4/IPv6 address or CIDR range' }), 'any of these addresses or ranges'),
  param: t.Object({
    type: t.Literal('param'),
    negate,
    name: text('query parameter name: sub1…sub10, click_id or any other'),
    op: lit(PARAM_OPS),
    value: t.Optional(t.String({ maxLength: MAX_VALUE_LENGTH, description: 'equals: the value; regex: the pattern' })),
    values: t.Optional(t.Array(t.String({ maxLength: MAX_VALUE_LENGTH }), { minItems: 1, maxItems: MAX_VALUES, description: 'in: the values; prefix: the prefixes' })),
    ignore_case: t.Optional(t.Boolean({ description: 'compare without regard to case (default false)' })),
  }, strict),
  time: t.Object({
    type: t.Literal('time'),
    negate,
    tz: t.String({ minLength: 1, maxLength: 64, description: 'IANA time zone (Europe/Berlin, UTC)' }),
    from: t.Optional(t.String({ pattern: '^\\d\\d:\\d\\d$', description: 'window start HH:MM, inclusive' })),
    to: t.Optional(t.String({ pattern: '^\\d\\d:\\d\\d$', description: 'window end HH:MM, exclusive (24:00 = midnight); before `from` = wraps midnight' })),
    days: t.Optional(t.Array(lit(DAYS), { minItems: 1, maxItems: 7, description: 'weekdays; a window wrapping midnight belongs to the day it starts' })),
  }, strict),
  unique: t.Object({ type: t.Literal('unique'), negate }, { ...strict, description: 'a unique visitor (negate: a repeat visitor)' }),
  bot: t.Object({ type: t.Literal('bot'), negate }, { ...strict, description: 'traffic quality flagged the visit as a bot' }),
} as const

export type LeafType = keyof typeof CONDITION_SCHEMAS
export const LEAF_TYPES = Object.keys(CONDITION_SCHEMAS) as LeafType[]
export type LeafCondition = { [K in LeafType]: Static<(typeof CONDITION_SCHEMAS)[K]> }[LeafType]
export type ConditionOf<K extends LeafType> = Static<(typeof CONDITION_SCHEMAS)[K]>

const LeafSchema = t.Union(LEAF_TYPES.map((k) => CONDITION_SCHEMAS[k]))
export const GroupSchema = t.Object({
  type: t.Literal('group'),
  negate,
  all: t.Array(LeafSchema, { minItems: 1, maxItems: MAX_CONDITIONS, description: 'holds when all of these hold (groups do not nest)' }),
}, { ...strict, description: 'a group, usually negated: NOT (a AND b) = (NOT a) OR (NOT b)' })
export type GroupCondition = Static<typeof GroupSchema>
export type Condition = LeafCondition | GroupCondition
export type ConditionType = Condition['type']

/** The exact shape, for OpenAPI documents and records the API returns. */
export const ConditionSchema = t.Union([LeafSchema, GroupSchema])
export const ConditionsSchema = t.Array(ConditionSchema, { maxItems: MAX_CONDITIONS, description: 'all must hold (AND); none = every visitor' })

/**
 * The shape for verb inputs. A union's schema error names only the condition ("Expected union value"), so
 * inputs check `type` and leave the rest to checkConditions(), which reports the exact field
 * ("conditions.2.values.0: …") from the one schema that `type` selects.
 */
export const ConditionInput = t.Object({
  type: lit([...LEAF_TYPES, 'group'] as const),
  negate,
}, { additionalProperties: true, description: 'a condition: see docs/rules.md for each type' })
export const ConditionsInput = t.Array(ConditionInput, { maxItems: MAX_CONDITIONS, description: 'all must hold (AND); none = every visitor' })
