// Verbs of conversion types and the status map. Every change announces `conversion-types.changed`;
// the /postback cache (and any other) reloads on it.
import { Type } from '@sinclair/typebox'
import type { EventBus } from '../lib/event-bus'
import { conflict, invalid } from '../lib/errors'
import { isUniqueViolation } from '../db/errors'
import { defineVerb, type VerbSet } from '../lib/verb'
import { NEVER_FORWARDED } from './builtin-types'
import type { ConversionType, ConversionTypes } from './conversion-types'
import type { ConversionTypeRow, ConversionTypesStore } from './conversion-types-store'

const SLUG = /^[a-z][a-z0-9_-]{0,31}$/
const MAX_STATUS_LENGTH = 64
const MAX_STATUS_ENTRIES = 500

/** The flags and name of a type, as sent to create or change it. */
export const typeFields = {
  name: Type.Optional(Type.String()),
  include_in_conversions: Type.Optional(Type.Boolean()),
  include_in_revenue: Type.Optional(Type.Boolean()),
  send_postback: Type.Optional(Type.Boolean()),
  negative: Type.Optional(Type.Boolean()),
}

/** What a write sets: a type without its bookkeeping fields. */
type TypeSettings = Omit<ConversionType, 'builtin' | 'created_at' | 'updated_at'>

function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '' || name.length > 100) throw invalid('name: must be 1-100 characters')
  return name.trim()
}

function checkForwarding(t: TypeSettings) {
  if (t.send_postback && (NEVER_FORWARDED.has(t.slug) || t.negative)) {
    throw invalid('send_postback: never for reject and chargeback (nor any negative type)')
  }
}

function toDb(t: TypeSettings): ConversionTypeRow {
  return {
    slug: t.slug,
    name: t.name,
    include_in_conversions: t.include_in_conversions ? 1 : 0,
    include_in_revenue: t.include_in_revenue ? 1 : 0,
    send_postback: t.send_postback ? 1 : 0,
    negative: t.negative ? 1 : 0,
  }
}

/**
 * A wrong value as an error message shows it: a string cut short, anything else by its kind. Never the
 * whole value: a 100,000-deep array overflowed JSON.stringify's stack (a 500 found by `npm run fuzz`).
 */
const shortly = (v: unknown): string =>
  typeof v === 'string' ? JSON.stringify(v.slice(0, 64)) : v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : String(v)

export function conversionTypeVerbs(deps: { store: ConversionTypesStore; types: ConversionTypes; events: EventBus }) {
  const { store, types, events } = deps
  // Reloading the cache happens through the event, like every other cache; on Postgres the reload is
  // async, so a verb waits for it before it reads the cache back.
  const changed = () => {
    events.committed('conversion-types.changed', {})
    return types.loaded()
  }

  return {
    list: defineVerb({
      name: 'conversion-types.list',
      summary: 'List conversion types (one page: the set is small)',
      permission: 'conversions:read',
      input: Type.Object({}),
      run: async () => ({ items: types.list(), next_cursor: null }),
    }),
    get: defineVerb({
      name: 'conversion-types.get',
      summary: 'Get a conversion type',
      permission: 'conversions:read',
      input: Type.Object({ slug: Type.String() }),
      run: async (_actor, { slug }) => types.get(slug),
    }),
    create: defineVerb({
      name: 'conversion-types.create',
      summary: 'Create a conversion type',
      permission: 'conversions:write',
      input: Type.Object({ slug: Type.String(), ...typeFields }),
      async run(_actor, input) {
        const slug = input.slug
        if (!SLUG.test(slug)) throw invalid('slug: must match ^[a-z][a-z0-9_-]{0,31}$')
        const name = checkName(input.name ?? '')
        const taken = () => conflict(`conversion type "${slug}" already exists`)
        if (await store.exists(slug)) throw taken()
        const row: TypeSettings = {
          slug,
          name,
          include_in_conversions: input.include_in_conversions ?? true,
          include_in_revenue: input.include_in_revenue ?? true,
          send_postback: input.send_postback ?? false,
          negative: input.negative ?? false,
        }
        checkForwarding(row)
        try {
          await store.insert(toDb(row), Date.now())
        } catch (err) {
          // Two creates of one slug at once: the unique index decides, the loser gets the same 409.
          if (isUniqueViolation(err)) throw taken()
          throw err
        }
        await changed()
        return types.get(slug)
      },
    }),
    update: defineVerb({
      name: 'conversion-types.update',
      summary: 'Change a conversion type (built-in ones too)',
      permission: 'conversions:write',
      input: Type.Object({ slug: Type.String(), changes: Type.Object({ slug: Type.Optional(Type.String()), ...typeFields }) }),
      async run(_actor, { slug, changes }) {
        const current = types.get(slug)
        if (changes.slug !== undefined && changes.slug !== slug) throw invalid('slug: cannot be changed')
        const row: TypeSettings = {
          slug,
          name: changes.name === undefined ? current.name : checkName(changes.name),
          include_in_conversions: changes.include_in_conversions ?? current.include_in_conversions,
          include_in_revenue: changes.include_in_revenue ?? current.include_in_revenue,
          send_postback: changes.send_postback ?? current.send_postback,
          negative: changes.negative ?? current.negative,
        }
        checkForwarding(row)
        await store.update(toDb(row), Date.now())
        await changed()
        return types.get(slug)
      },
    }),
    delete: defineVerb({
      name: 'conversion-types.delete',
      summary: 'Delete a conversion type (409 when built in or in use)',
      permission: 'conversions:write',
      input: Type.Object({ slug: Type.String() }),
      async run(_actor, { slug }) {
        const current = types.get(slug)
        if (current.builtin) throw conflict(`conversion type "${slug}" is built in; it can be edited but not deleted`)
        const used = await store.countConversionsOfType(slug)
        if (used > 0) throw conflict(`conversion type "${slug}" is used by ${used} conversion(s)`)
        const mapped = await store.statusesMappedTo(slug)
        if (mapped.length) throw conflict(`conversion type "${slug}" is the target of status map entries: ${mapped.join(', ')}`)
        await store.remove(slug)
        await changed()
        return { ok: true as const }
      },
    }),

    getStatusMap: defineVerb({
      name: 'status-map.get',
      summary: 'Received postback status → conversion type slug',
      permission: 'conversions:read',
      input: Type.Object({}),
      run: async () => types.statusMapObject(),
    }),
    replaceStatusMap: defineVerb({
      name: 'status-map.replace',
      summary: 'Replace the whole status map',
      permission: 'conversions:write',
      // Checked below, so each bad entry gets a message that names it.
      input: Type.Unknown(),
      async run(_actor, body) {
        if (body === null || typeof body !== 'object' || Array.isArray(body)) {
          throw invalid('body: must be an object like {"approved":"sale"}')
        }
        // Keys are trimmed and lower-cased like received statuses.
        const entries = new Map<string, string>()
        for (const [rawKey, value] of Object.entries(body as Record<string, unknown>)) {
          const key = rawKey.trim().toLowerCase()
          if (key === '' || key.length > MAX_STATUS_LENGTH) throw invalid(`${rawKey}: a status must be 1-${MAX_STATUS_LENGTH} characters`)
          if (typeof value !== 'string' || !types.has(value)) {
            throw invalid(`${rawKey}: ${shortly(value)} is not an existing conversion type slug`)
          }
          const prev = entries.get(key)
          if (prev !== undefined && prev !== value) throw invalid(`${rawKey}: "${key}" is mapped twice (statuses are case-insensitive)`)
          entries.set(key, value)
        }
        if (entries.size > MAX_STATUS_ENTRIES) throw invalid(`body: at most ${MAX_STATUS_ENTRIES} statuses`)
        await store.replaceStatusMap([...entries])
        await changed()
        return types.statusMapObject()
      },
    }),
  } satisfies VerbSet
}

export type ConversionTypeVerbs = ReturnType<typeof conversionTypeVerbs>
