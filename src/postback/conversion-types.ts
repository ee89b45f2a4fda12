// Conversion types and the status map: an in-memory cache for the postback hot path plus their admin verbs.
import type { EventBus } from '../lib/event-bus'
import { invalid, conflict, notFound } from '../lib/errors'
import type { ConversionTypeRecord, PostbackQueries } from './queries'

export interface ConversionType {
  slug: string
  name: string
  include_in_conversions: boolean
  include_in_revenue: boolean
  send_postback: boolean
  negative: boolean
  builtin: boolean
  created_at: string
  updated_at: string
}

export interface ConversionTypeInput {
  slug?: string
  name?: string
  include_in_conversions?: boolean
  include_in_revenue?: boolean
  send_postback?: boolean
  negative?: boolean
}

/** Used when a status is neither mapped nor a type slug (and when none is sent). */
export const FALLBACK_TYPE = 'sale'
const SLUG = /^[a-z][a-z0-9_-]{0,31}$/
/** Spec §2: reject and chargeback never forward a postback; neither does any other negative type. */
const NEVER_FORWARDED = new Set(['reject', 'chargeback'])
const MAX_STATUS_LENGTH = 64
const MAX_STATUS_ENTRIES = 500

function toApi(r: ConversionTypeRecord): ConversionType {
  return {
    slug: r.slug,
    name: r.name,
    include_in_conversions: r.include_in_conversions === 1,
    include_in_revenue: r.include_in_revenue === 1,
    send_postback: r.send_postback === 1,
    negative: r.negative === 1,
    builtin: r.builtin === 1,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  }
}

export class ConversionTypes {
  private types = new Map<string, ConversionType>()
  private statusMap = new Map<string, string>()

  constructor(private readonly q: PostbackQueries, private readonly events: EventBus) {
    this.reload()
    events.on('conversion-types.changed', 'after-commit', 'postback.conversion-types-cache', () => this.reload())
  }

  reload(): void {
    this.types = new Map((this.q.allTypes.all() as ConversionTypeRecord[]).map((r) => [r.slug, toApi(r)]))
    this.statusMap = new Map((this.q.allStatusMap.all() as Array<{ status: string; type_slug: string }>).map((r) => [r.status, r.type_slug]))
  }

  /** Received status → type: the status map, else a type with that slug, else sale (also when absent). */
  resolve(status: string | undefined): ConversionType {
    const key = status?.trim().toLowerCase()
    const slug = key ? (this.statusMap.get(key) ?? (this.types.has(key) ? key : FALLBACK_TYPE)) : FALLBACK_TYPE
    return this.types.get(slug) ?? this.types.get(FALLBACK_TYPE) ?? fallbackType()
  }

  list(): ConversionType[] {
    return [...this.types.values()]
  }

  get(slug: string): ConversionType {
    const t = this.types.get(slug)
    if (!t) throw notFound('conversion type not found')
    return t
  }

  create(input: ConversionTypeInput): ConversionType {
    const slug = input.slug ?? ''
    if (!SLUG.test(slug)) throw invalid('slug: must match ^[a-z][a-z0-9_-]{0,31}$')
    const name = checkName(input.name ?? '')
    if (this.q.typeBySlug(slug)) throw conflict(`conversion type "${slug}" already exists`)
    const row = {
      slug,
      name,
      include_in_conversions: input.include_in_conversions ?? true,
      include_in_revenue: input.include_in_revenue ?? true,
      send_postback: input.send_postback ?? false,
      negative: input.negative ?? false,
    }
    checkForwarding(row)
    this.q.insertType(toDb(row), Date.now())
    this.changed()
    return this.get(slug)
  }

  update(slug: string, input: ConversionTypeInput): ConversionType {
    const current = this.get(slug)
    if (input.slug !== undefined && input.slug !== slug) throw invalid('slug: cannot be changed')
    const row = {
      slug,
      name: input.name === undefined ? current.name : checkName(input.name),
      include_in_conversions: input.include_in_conversions ?? current.include_in_conversions,
      include_in_revenue: input.include_in_revenue ?? current.include_in_revenue,
      send_postback: input.send_postback ?? current.send_postback,
      negative: input.negative ?? current.negative,
    }
    checkForwarding(row)
    this.q.updateType(toDb(row), Date.now())
    this.changed()
    return this.get(slug)
  }

  remove(slug: string): void {
    const current = this.get(slug)
    if (current.builtin) throw conflict(`conversion type "${slug}" is built in; it can be edited but not deleted`)
    const used = this.q.countConversionsOfType(slug)
    if (used > 0) throw conflict(`conversion type "${slug}" is used by ${used} conversion(s)`)
    const mapped = this.q.statusesMappedTo(slug)
    if (mapped.length) throw conflict(`conversion type "${slug}" is the target of status map entries: ${mapped.join(', ')}`)
    this.q.deleteType(slug)
    this.changed()
  }

  statusMapObject(): Record<string, string> {
    return Object.fromEntries(this.statusMap)
  }

  /** PUT replaces the whole map; keys are trimmed and lower-cased like received statuses. */
  replaceStatusMap(body: unknown): Record<string, string> {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw invalid('body: must be an object like {"approved":"sale"}')
    }
    const entries = new Map<string, string>()
    for (const [rawKey, value] of Object.entries(body as Record<string, unknown>)) {
      const key = rawKey.trim().toLowerCase()
      if (key === '' || key.length > MAX_STATUS_LENGTH) throw invalid(`${rawKey}: a status must be 1-${MAX_STATUS_LENGTH} characters`)
      if (typeof value !== 'string' || !this.types.has(value)) {
        throw invalid(`${rawKey}: ${JSON.stringify(value)} is not an existing conversion type slug`)
      }
      const prev = entries.get(key)
      if (prev !== undefined && prev !== value) throw invalid(`${rawKey}: "${key}" is mapped twice (statuses are case-insensitive)`)
      entries.set(key, value)
    }
    if (entries.size > MAX_STATUS_ENTRIES) throw invalid(`body: at most ${MAX_STATUS_ENTRIES} statuses`)
    this.q.replaceStatusMap([...entries])
    this.changed()
    return this.statusMapObject()
  }

  private changed() {
    // Every cache (this one, reports) listens on the signal; reloading here happens through it.
    this.events.committed('conversion-types.changed', {})
  }
}

function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '' || name.length > 100) throw invalid('name: must be 1-100 characters')
  return name.trim()
}

function checkForwarding(t: { slug: string; send_postback: boolean; negative: boolean }) {
  if (t.send_postback && (NEVER_FORWARDED.has(t.slug) || t.negative)) {
    throw invalid('send_postback: never for reject and chargeback (nor any negative type)')
  }
}

function toDb(t: { slug: string; name: string; include_in_conversions: boolean; include_in_revenue: boolean; send_postback: boolean; negative: boolean }) {
  return {
    slug: t.slug,
    name: t.name,
    include_in_conversions: t.include_in_conversions ? 1 : 0,
    include_in_revenue: t.include_in_revenue ? 1 : 0,
    send_postback: t.send_postback ? 1 : 0,
    negative: t.negative ? 1 : 0,
  }
}

/** Only reachable if someone deleted the built-in sale row by hand: record as a plain sale, never forward. */
function fallbackType(): ConversionType {
  const epoch = new Date(0).toISOString()
  return {
    slug: FALLBACK_TYPE, name: 'Sale', include_in_conversions: true, include_in_revenue: true,
    send_postback: false, negative: false, builtin: true, created_at: epoch, updated_at: epoch,
  }
}
