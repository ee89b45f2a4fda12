// Every SQL statement of split tests and auto-weights, one text for both engines (db/store-db.ts).
//
// Where the numbers come from: the report rollups are keyed either by (campaign, offer, landing) or by
// (campaign, path), never by both, so they cannot give the offers of one path. A split test reads the raw clicks
// of the window instead (clicks_campaign_created_idx: campaign, then the time range), and the conversions of
// those clicks through conversions_campaign_date_idx joined to their click by primary key. The window is capped
// (MAX_WINDOW_DAYS in verbs.ts), so the scan is bounded; docs/optimisation.md has the measurement.
import { empty, inList, raw, sql, type Sql } from '../db/sql'
import { storeDb, type Queries, type StoreDb } from '../db/store-db'
import type { AnyDatabase } from '../db/engine'
import type { MaybeAsync, Steps } from '../lib/steps'

export type Kind = 'offers' | 'landings'

/** A rotation: a campaign's default one (pathId null) or a targeting path's, of offers or of landings. */
export interface RotationRef { campaignId: number; pathId: number | null; kind: Kind }

export interface Entry { id: number; weight: number; autoWeight: number | null }

export interface ClickCount { id: number; clicks: number }
export interface ConversionSum { id: number; type: string; currency: string; n: number; revenue: number; abs: number; sq: number }
export interface TypeFlags { slug: string; conversions: boolean; revenue: boolean; negative: boolean }

export interface ConfigRow {
  campaignId: number; pathId: number; kind: Kind; enabled: boolean; metric: 'cr' | 'epc'; floorPct: number; minClicks: number
  windowHours: number; refreshMinutes: number; version: number; updatedBy: string; updatedAt: number
}
export type ConfigValues = Omit<ConfigRow, 'version' | 'updatedAt'>

export interface WeightChangeRow {
  id: number; campaignId: number; pathId: number | null; kind: Kind; at: number; actor: string; before: string; after: string; reason: string
}

const LINKS = {
  offers: { campaign: raw('campaign_offers'), path: raw('path_offers'), ref: raw('offer_id') },
  landings: { campaign: raw('campaign_landings'), path: raw('path_landings'), ref: raw('landing_id') },
} as const

const CONFIG_COLS = raw(`campaign_id AS "campaignId", path_id AS "pathId", kind, enabled, metric, floor_pct AS "floorPct",
  min_clicks AS "minClicks", window_hours AS "windowHours", refresh_minutes AS "refreshMinutes", version, updated_by AS "updatedBy",
  updated_at AS "updatedAt"`)

const toConfig = (r: ConfigRow): ConfigRow => ({ ...r, enabled: Number(r.enabled) !== 0, floorPct: Number(r.floorPct) })

/** The rotation's link table and the condition that picks its rows. */
function linkOf(r: RotationRef): { table: Sql; ref: Sql; where: Sql } {
  const l = LINKS[r.kind]
  return r.pathId === null
    ? { table: l.campaign, ref: l.ref, where: sql`campaign_id = ${r.campaignId}` }
    : { table: l.path, ref: l.ref, where: sql`path_id = ${r.pathId}` }
}

/** The clicks of the rotation: the default rotation's have no path. Own-IP (excluded) and bot clicks are left out. */
function clicksOf(r: RotationRef, alias: string): Sql {
  const k = raw(alias)
  const path = r.pathId === null ? sql`${k}.path_id IS NULL` : sql`${k}.path_id = ${r.pathId}`
  return sql`${k}.campaign_id = ${r.campaignId} AND ${path} AND ${k}.excluded = 0 AND coalesce(${k}.bot_reason, '') = ''`
}

function* entriesOf(q: Queries, r: RotationRef, lock: Sql): Steps<Entry[]> {
  const { table, ref, where } = linkOf(r)
  const rows: Entry[] = yield q.all(sql`SELECT ${ref} AS id, weight, auto_weight AS "autoWeight" FROM ${table} WHERE ${where}
    ORDER BY position, ${ref} ${lock}`)
  return rows.map((e) => ({ id: Number(e.id), weight: Number(e.weight), autoWeight: e.autoWeight === null ? null : Number(e.autoWeight) }))
}

export class OptimisationStore {
  private readonly db: StoreDb
  constructor(database: AnyDatabase) {
    this.db = storeDb(database)
  }

  campaignExists(id: number): Promise<boolean> {
    return this.db.get<{ id: number }>(sql`SELECT id FROM campaigns WHERE id = ${id}`).then((r) => r !== undefined)
  }

  /** The path's action, when it is a path of this campaign. */
  pathAction(campaignId: number, pathId: number): Promise<string | undefined> {
    return this.db.get<{ action: string }>(sql`SELECT action FROM campaign_paths WHERE id = ${pathId} AND campaign_id = ${campaignId}`)
      .then((r) => r?.action)
  }

  entries(r: RotationRef): Promise<Entry[]> {
    return this.db.atomically((q) => entriesOf(q, r, empty))
  }

  /** Clicks per entry in [from, to). */
  clicks(r: RotationRef, from: number, to: number): Promise<ClickCount[]> {
    const ref = raw(`k.${r.kind === 'offers' ? 'offer_id' : 'landing_id'}`)
    return this.db.all<ClickCount>(sql`SELECT ${ref} AS id, count(*) AS clicks FROM clicks k
      WHERE ${clicksOf(r, 'k')} AND k.created_at >= ${from} AND k.created_at < ${to} AND ${ref} IS NOT NULL GROUP BY ${ref}`)
  }

  /**
   * Conversions of the window's clicks per entry, type and currency ('' = none: the cost currency, as reports
   * read it). A conversion is never dated before its click, so its date bounds the index range from below.
   * CROSS JOIN keeps SQLite's loop order: conversions outside, each click by primary key (left to itself, it
   * walked the clicks by campaign and searched the conversions' range for each: minutes at 1M clicks). Postgres
   * plans a CROSS JOIN with a WHERE like any inner join.
   */
  conversions(r: RotationRef, from: number, to: number): Promise<ConversionSum[]> {
    const ref = raw(`k.${r.kind === 'offers' ? 'offer_id' : 'landing_id'}`)
    return this.db.all<ConversionSum>(sql`SELECT ${ref} AS id, v.type AS type, upper(coalesce(v.currency, '')) AS currency, count(*) AS n,
      sum(v.revenue) AS revenue, sum(abs(v.revenue)) AS abs, sum(v.revenue * v.revenue) AS sq
      FROM conversions v CROSS JOIN clicks k
      WHERE k.id = v.click_row_id AND v.campaign_id = ${r.campaignId} AND v.date >= ${from} AND ${clicksOf(r, 'k')} AND k.created_at >= ${from} AND k.created_at < ${to}
        AND ${ref} IS NOT NULL
      GROUP BY ${ref}, v.type, upper(coalesce(v.currency, ''))`)
  }

  /** The names of these offers or landings (for the verdict's words). */
  names(kind: Kind, ids: readonly number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return Promise.resolve(new Map())
    return this.db.all<{ id: number; name: string }>(sql`SELECT id, name FROM ${raw(kind)} WHERE id IN ${inList(ids)}`)
      .then((rows) => new Map(rows.map((r) => [Number(r.id), r.name])))
  }

  types(): Promise<TypeFlags[]> {
    return this.db.all<{ slug: string; c: unknown; r: unknown; n: unknown }>(sql`SELECT slug, include_in_conversions AS c,
      include_in_revenue AS r, negative AS n FROM conversion_types`)
      .then((rows) => rows.map((t) => ({ slug: t.slug, conversions: Number(t.c) !== 0, revenue: Number(t.r) !== 0, negative: Number(t.n) !== 0 })))
  }

  config(r: RotationRef): Promise<ConfigRow | undefined> {
    return this.db.get<ConfigRow>(sql`SELECT ${CONFIG_COLS} FROM auto_weight_configs WHERE campaign_id = ${r.campaignId}
      AND path_id = ${r.pathId ?? 0} AND kind = ${r.kind}`).then((c) => (c ? toConfig(c) : undefined))
  }

  configs(campaignId: number): Promise<ConfigRow[]> {
    return this.db.all<ConfigRow>(sql`SELECT ${CONFIG_COLS} FROM auto_weight_configs WHERE campaign_id = ${campaignId}
      ORDER BY path_id, kind`).then((rows) => rows.map(toConfig))
  }

  /**
   * One transaction over the rotation: its config row locked (Postgres: a PUT and a job of the same rotation take
   * turns), its entries, and the writes the body decides on.
   */
  inRotation<R>(r: RotationRef, body: (tx: RotationTx) => Steps<R>): Promise<R> {
    const db = this.db
    return db.atomically(function* (q) {
      const config: ConfigRow | undefined = yield q.get<ConfigRow>(sql`SELECT ${CONFIG_COLS} FROM auto_weight_configs
        WHERE campaign_id = ${r.campaignId} AND path_id = ${r.pathId ?? 0} AND kind = ${r.kind} ${db.forUpdate}`)
      const entries = yield* entriesOf(q, r, db.forUpdate)
      return yield* body(new RotationTx(q, r, config ? toConfig(config) : undefined, entries))
    })
  }

  weightChanges(campaignId: number, beforeId: number | null, limit: number): Promise<WeightChangeRow[]> {
    return this.db.all<WeightChangeRow>(sql`SELECT id, campaign_id AS "campaignId", path_id AS "pathId", kind, at, actor, "before", "after", reason
      FROM weight_changes WHERE campaign_id = ${campaignId} ${beforeId === null ? empty : sql`AND id < ${beforeId}`}
      ORDER BY id DESC LIMIT ${limit}`)
  }
}

/** The writes of one rotation inside inRotation(): statements of the open transaction (values on SQLite). */
export class RotationTx {
  constructor(private readonly q: Queries, readonly ref: RotationRef, readonly config: ConfigRow | undefined, readonly entries: Entry[]) {}

  get tx() {
    return this.q.tx
  }

  /** Inserts or replaces the config; the version goes up by one (older jobs stop). Returns the new version. */
  saveConfig(c: ConfigValues, now: number): MaybeAsync<number> {
    const version = (this.config?.version ?? 0) + 1
    return then(this.q.run(sql`INSERT INTO auto_weight_configs (campaign_id, path_id, kind, enabled, metric, floor_pct, min_clicks, window_hours,
        refresh_minutes, version, updated_by, updated_at)
      VALUES (${c.campaignId}, ${c.pathId}, ${c.kind}, ${c.enabled ? 1 : 0}, ${c.metric}, ${c.floorPct}, ${c.minClicks}, ${c.windowHours},
        ${c.refreshMinutes}, ${version}, ${c.updatedBy}, ${now})
      ON CONFLICT (campaign_id, path_id, kind) DO UPDATE SET enabled = excluded.enabled, metric = excluded.metric, floor_pct = excluded.floor_pct,
        min_clicks = excluded.min_clicks, window_hours = excluded.window_hours, refresh_minutes = excluded.refresh_minutes,
        version = excluded.version, updated_by = excluded.updated_by, updated_at = excluded.updated_at`), () => version)
  }

  /** Sets (or clears, with null) the auto weight of one entry. */
  setAutoWeight(id: number, autoWeight: number | null): MaybeAsync<number> {
    const { table, ref, where } = linkOf(this.ref)
    return this.q.run(sql`UPDATE ${table} SET auto_weight = ${autoWeight} WHERE ${where} AND ${ref} = ${id}`)
  }

  recordChange(c: Omit<WeightChangeRow, 'id' | 'campaignId' | 'pathId' | 'kind'>): MaybeAsync<number> {
    return this.q.run(sql`INSERT INTO weight_changes (campaign_id, path_id, kind, at, actor, "before", "after", reason)
      VALUES (${this.ref.campaignId}, ${this.ref.pathId}, ${this.ref.kind}, ${c.at}, ${c.actor}, ${c.before}, ${c.after}, ${c.reason})`)
  }
}

function then<T, R>(v: MaybeAsync<T>, f: (x: T) => R): MaybeAsync<R> {
  return v instanceof Promise ? v.then(f) : f(v)
}
