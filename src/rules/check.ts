// The save-time check of a path's conditions: the schema that `type` selects, then what a schema cannot say
// (CIDRs, time zones, regex safety, limits across groups). Every error is `invalid` naming the field
// ("conditions.2.values.0: …"). Returns the conditions normalised, as they should be stored: country and
// language codes in their usual case, domains in lower case without "www.", the zone's canonical name.
import { Type as t } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { parseCidr } from '../lib/cidr'
import { invalid } from '../lib/errors'
import { ZoneClock } from './clock'
import {
  CONDITION_SCHEMAS, DAYS, LEAF_TYPES, MAX_CONDITIONS, type Condition, type ConditionOf, type GroupCondition, type LeafCondition, type LeafType,
} from './model'
import { regexProblem } from './regex'

const GroupShape = t.Object({
  type: t.Literal('group'),
  negate: t.Optional(t.Boolean()),
  all: t.Array(t.Unknown(), { minItems: 1, maxItems: MAX_CONDITIONS }),
}, { additionalProperties: false })

const TYPES = [...LEAF_TYPES, 'group']

/** Parses and normalises a path's conditions, or throws `invalid` naming the field. */
export function checkConditions(raw: unknown, field = 'conditions'): Condition[] {
  if (!Array.isArray(raw)) throw invalid(`${field}: must be an array of conditions`)
  const out = raw.map((c, i) => checkOne(c, `${field}.${i}`, true))
  const leaves = out.reduce((n, c) => n + (c.type === 'group' ? c.all.length : 1), 0)
  if (leaves > MAX_CONDITIONS) throw invalid(`${field}: at most ${MAX_CONDITIONS} conditions per path, counting those inside groups (has ${leaves})`)
  return out
}

function schemaError(schema: Parameters<typeof Value.Errors>[0], value: unknown, field: string): void {
  const first = Value.Errors(schema, value).First()
  if (!first) return
  // A union of literals says what it accepts, instead of TypeBox's "Expected union value".
  const { anyOf: options, description } = first.schema as { anyOf?: Array<{ const?: unknown }>; description?: string }
  const message = !options ? first.message
    : options.every((o) => typeof o.const === 'string') ? `must be one of ${options.map((o) => o.const).join(', ')}`
    : description ? `must be a ${description}` : first.message
  throw invalid(`${field}${first.path.replace(/\//g, '.')}: ${message}`)
}

function checkOne(raw: unknown, f: string, groupAllowed: boolean): Condition {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalid(`${f}: must be an object with a type`)
  const type = (raw as { type?: unknown }).type
  if (typeof type !== 'string' || !TYPES.includes(type)) throw invalid(`${f}.type: must be one of ${TYPES.join(', ')}`)
  if (type === 'group') {
    if (!groupAllowed) throw invalid(`${f}.type: groups do not nest`)
    schemaError(GroupShape, raw, f)
    const g = raw as GroupCondition
    const all = (g.all as unknown[]).map((c, j) => checkOne(c, `${f}.all.${j}`, false) as LeafCondition)
    return g.negate === undefined ? { type: 'group', all } : { type: 'group', negate: g.negate, all }
  }
  schemaError(CONDITION_SCHEMAS[type as LeafType], raw, f)
  return normalise(structuredClone(raw) as LeafCondition, f)
}

/** Trimmed, non-empty, without NUL (Postgres text cannot hold one). */
function clean(s: string, f: string): string {
  const v = s.trim()
  if (v === '') throw invalid(`${f}: must not be blank`)
  if (v.includes('\0')) throw invalid(`${f}: must not contain NUL characters`)
  return v
}

const cleanAll = (values: string[], f: string) => values.map((v, k) => clean(v, `${f}.values.${k}`))

function normalise(c: LeafCondition, f: string): LeafCondition {
  switch (c.type) {
    case 'country':
      c.values = c.values.map((v) => v.toUpperCase())
      break
    case 'language':
      c.values = c.values.map((v) => v.toLowerCase())
      break
    case 'region': case 'city': case 'as_org': case 'os': case 'browser':
      c.values = cleanAll(c.values, f)
      break
    case 'referrer_domain':
      c.values = c.values.map((v, k) => domain(v, `${f}.values.${k}`))
      break
    case 'ip':
      c.values = c.values.map((v, k) => {
        try {
          parseCidr(v)
        } catch (e) {
          throw invalid(`${f}.values.${k}: ${JSON.stringify(v.slice(0, 64))} ${(e as Error).message}`)
        }
        return v.trim()
      })
      break
    case 'param':
      return param(c, f)
    case 'time':
      return time(c, f)
  }
  return c
}

/**
 * A referrer domain as tracking reads one (quality/user-agent.ts referrerDomain): lower case, punycode, no
 * trailing dot, no "www." (a referrer's "www." is dropped before matching). "*.example.com" stays a wildcard.
 */
function domain(raw: string, f: string): string {
  let v = clean(raw, f).toLowerCase()
  const wildcard = v.startsWith('*.')
  if (wildcard) v = v.slice(2)
  const u = /[/?#@:\\\s*]/.test(v) ? null : URL.parse(`http://${v}/`)
  let host = u?.hostname ?? ''
  if (host.endsWith('.')) host = host.slice(0, -1)
  if (host.startsWith('www.')) host = host.slice(4)
  if (!/^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/.test(host)) {
    throw invalid(`${f}: must be a domain such as example.com, or *.example.com for it and its subdomains`)
  }
  return wildcard ? `*.${host}` : host
}

function param(c: ConditionOf<'param'>, f: string): LeafCondition {
  c.name = clean(c.name, `${f}.name`)
  const needs: Record<string, 'value' | 'values' | null> = { equals: 'value', in: 'values', prefix: 'values', regex: 'value', empty: null, missing: null }
  const need = needs[c.op]!
  if (need !== null && c[need] === undefined) throw invalid(`${f}.${need}: required for op ${c.op}`)
  for (const key of ['value', 'values'] as const) {
    if (key !== need && c[key] !== undefined) throw invalid(`${f}.${key}: not used by op ${c.op}${need ? ` (give ${need})` : ''}`)
  }
  if (c.ignore_case !== undefined && need === null) throw invalid(`${f}.ignore_case: not used by op ${c.op}`)
  for (const [k, v] of (c.values ?? []).entries()) if (v.includes('\0')) throw invalid(`${f}.values.${k}: must not contain NUL characters`)
  if (c.value?.includes('\0')) throw invalid(`${f}.value: must not contain NUL characters`)
  if (c.op === 'regex') {
    const problem = regexProblem(c.value!, c.ignore_case === true)
    if (problem) throw invalid(`${f}.value: the regex ${problem}`)
  }
  return c
}

/** "HH:MM" → minutes; `to` may be 24:00. */
function minutes(hhmm: string, f: string, max: number): number {
  const m = Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))
  if (Number(hhmm.slice(3, 5)) > 59 || m > max) throw invalid(`${f}: must be a time from 00:00 to ${max === 1440 ? '24:00' : '23:59'}`)
  return m
}

function time(c: ConditionOf<'time'>, f: string): LeafCondition {
  const clock = ZoneClock.of(c.tz.trim())
  if (!clock) throw invalid(`${f}.tz: unknown time zone ${JSON.stringify(c.tz.slice(0, 64))}`)
  c.tz = clock.zone
  if ((c.from === undefined) !== (c.to === undefined)) throw invalid(`${f}.${c.from === undefined ? 'from' : 'to'}: required with ${c.from === undefined ? 'to' : 'from'}`)
  if (c.from === undefined && c.days === undefined) throw invalid(`${f}: give a window (from and to), days, or both`)
  if (c.from !== undefined) {
    const from = minutes(c.from, `${f}.from`, 1439)
    const to = minutes(c.to!, `${f}.to`, 1440)
    if (from === to % 1440) throw invalid(`${f}.to: must differ from from (for whole days, give days only)`)
  }
  if (c.days) c.days = DAYS.filter((d) => c.days!.includes(d))
  return c
}

/** Minutes of an already checked "HH:MM". */
export const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))
