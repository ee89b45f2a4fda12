// Conversion types and the status map as /postback reads them: an in-memory cache, reloaded whenever
// `conversion-types.changed` is announced (the admin verbs are in type-verbs.ts).
import type { EventBus } from '../lib/event-bus'
import { notFound } from '../lib/errors'
import { iso } from '../lib/time'
import { FALLBACK_TYPE } from './builtin-types'
import type { ConversionTypeRecord, ConversionTypesStore, StatusMapRow } from './conversion-types-store'
import { errorFields, log } from '../lib/log'

import type { ConversionType } from '../events'
export type { ConversionType } from '../events'

function toApi(r: ConversionTypeRecord): ConversionType {
  return {
    slug: r.slug,
    name: r.name,
    include_in_conversions: r.include_in_conversions === 1,
    include_in_revenue: r.include_in_revenue === 1,
    send_postback: r.send_postback === 1,
    negative: r.negative === 1,
    builtin: r.builtin === 1,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  }
}

export class ConversionTypes {
  private types = new Map<string, ConversionType>()
  private statusMap = new Map<string, string>()
  /** The newest reload started; an older one that finishes after it is not applied. */
  private generation = 0
  private pending: Promise<void>

  /** On SQLite the cache is loaded before this returns; on Postgres await `loaded()` before serving. */
  constructor(private readonly store: ConversionTypesStore, events: EventBus) {
    this.pending = this.reload()
    events.on('conversion-types.changed', 'after-commit', 'postback.conversion-types-cache', () => {
      this.pending = this.reload()
      // After-commit subscribers are synchronous: a failed reload (Postgres) keeps the previous cache.
      this.pending.catch((err) => log.error('postback: reloading conversion types failed', errorFields(err)))
    })
  }

  /**
   * Reads both tables again. Synchronous inside on SQLite (the returned Promise is already settled);
   * on Postgres the cache is swapped once both reads are back. Also what cross-instance invalidation calls.
   */
  reload(): Promise<void> {
    const generation = ++this.generation
    const loaded = this.store.load()
    if (!(loaded instanceof Promise)) {
      this.apply(loaded.types, loaded.statusMap)
      return Promise.resolve()
    }
    return loaded.then(({ types, statusMap }) => {
      if (generation === this.generation) this.apply(types, statusMap)
    })
  }

  /** Settles when the reload the last change started is done (at once on SQLite): a writer awaits it before reading back. */
  loaded(): Promise<void> {
    return this.pending
  }

  private apply(types: ConversionTypeRecord[], statusMap: StatusMapRow[]): void {
    this.types = new Map(types.map((r) => [r.slug, toApi(r)]))
    this.statusMap = new Map(statusMap.map((r) => [r.status, r.type_slug]))
  }

  /** Received status → type: the status map, else a type with that slug, else sale (also when absent). */
  resolve(status: string | undefined): ConversionType {
    const key = status?.trim().toLowerCase()
    const slug = key ? (this.statusMap.get(key) ?? (this.types.has(key) ? key : FALLBACK_TYPE)) : FALLBACK_TYPE
    return this.types.get(slug) ?? this.types.get(FALLBACK_TYPE) ?? fallbackType()
  }

  has(slug: string): boolean {
    return this.types.has(slug)
  }

  list(): ConversionType[] {
    return [...this.types.values()]
  }

  get(slug: string): ConversionType {
    const t = this.types.get(slug)
    if (!t) throw notFound('conversion type not found')
    return t
  }

  statusMapObject(): Record<string, string> {
    return Object.fromEntries(this.statusMap)
  }
}

/** Only reachable if someone deleted the built-in sale row by hand: record as a plain sale, never forward. */
function fallbackType(): ConversionType {
  const epoch = iso(0)
  return {
    slug: FALLBACK_TYPE, name: 'Sale', include_in_conversions: true, include_in_revenue: true,
    send_postback: false, negative: false, builtin: true, created_at: epoch, updated_at: epoch,
  }
}
