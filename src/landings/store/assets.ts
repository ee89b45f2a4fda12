// The static assets of hosted landings (images, CSS, fonts) on both engines: the rows of `landing_assets`,
// one per (landing_id, path), with their bytes (a blob on SQLite, bytea on Postgres). They go with their
// landing (ON DELETE CASCADE).
//
// An upload checks and writes in one transaction: the landing still exists, and the bytes of the landing's
// other assets plus this one stay within the quota the caller checks (`checkTotal`). On Postgres the upload
// locks the landing row (FOR NO KEY UPDATE), so two uploads to one landing take turns (neither can slip past
// the quota the other one is about to fill) and a concurrent delete of the landing waits for the upload
// (or the upload sees the landing gone: not_found, never a foreign-key error).
import type { SQL } from 'bun'
import type { Database, RawDb, RawStatement } from '../../db/client'
import type { AnyDatabase } from '../../db/engine'
import { num, numCols, type PgDatabase } from '../../db/pg/client'
import { notFound } from '../../lib/errors'
import type { Page } from '../../lib/paging'
import type { AssetInfo, AssetRow } from './types'

/** The landing an asset belongs to, as far as its assets need it (its public URL is /lp/<slug>/<path>). */
export interface LandingRef {
  id: number
  slug: string
}

/** One upload: the asset's bytes and what the verb derived from them. */
export interface NewAsset {
  landingId: number
  /** Checked by the verb (landings/assets.ts). */
  path: string
  contentType: string
  /** The ETag value without quotes (the verb computes it from the bytes). */
  etag: string
  body: Uint8Array
  /** Epoch ms: created_at of a new asset, updated_at always. */
  now: number
}

/** What put() did: the row as stored, whether it is new (else it replaced one), and its landing. */
export interface PutResult {
  row: AssetInfo
  created: boolean
  landing: LandingRef
}

/**
 * Called inside the upload's transaction with the bytes the landing's OTHER assets take (the asset being
 * replaced does not count); throws to refuse the upload (nothing is written).
 */
export type CheckTotal = (othersBytes: number) => void

export interface AssetStore {
  /** The landing, or undefined when there is no such landing. */
  landing(id: number): Promise<LandingRef | undefined>
  /** The landing's assets in id order after page.afterId, limit + 1 rows (the extra row says another page exists). */
  list(landingId: number, page: Page): Promise<AssetInfo[]>
  /** One asset with its bytes. */
  find(landingId: number, path: string): Promise<AssetRow | undefined>
  /** One asset of the landing with this slug (public serving); with its bytes unless `withBody` is false. */
  findBySlug(slug: string, path: string, withBody: true): Promise<AssetRow | undefined>
  findBySlug(slug: string, path: string, withBody: false): Promise<AssetInfo | undefined>
  /** Creates or replaces the asset at (landingId, path). not_found "landing not found" when there is no such landing. */
  put(asset: NewAsset, checkTotal?: CheckTotal): Promise<PutResult>
  /** false when there was no such asset. */
  delete(landingId: number, path: string): Promise<boolean>
  /** The bytes all of the landing's assets take. */
  totalSize(landingId: number): Promise<number>
}

export const landingNotFound = () => notFound('landing not found')

/** The asset store of the engine in use. */
export function assetStore(database: AnyDatabase): AssetStore {
  return database.engine === 'postgres' ? new PgAssetStore(database) : new SqliteAssetStore(database)
}

// ── SQLite ──

const SQLITE_INFO = `id, landing_id AS landingId, path, content_type AS contentType, size, etag, created_at AS createdAt, updated_at AS updatedAt`
const SQLITE_INFO_A = `a.id, a.landing_id AS landingId, a.path, a.content_type AS contentType, a.size, a.etag, a.created_at AS createdAt, a.updated_at AS updatedAt`

/** A blob as bun:sqlite (Uint8Array) or better-sqlite3 (Buffer) gives it, as a plain Uint8Array view. */
function bytes(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v
  if (v instanceof ArrayBuffer) return new Uint8Array(v)
  throw new Error('landing_assets.body is not a blob')
}

export class SqliteAssetStore implements AssetStore {
  private readonly raw: RawDb
  private readonly st: Record<'landing' | 'list' | 'find' | 'bySlug' | 'bySlugInfo' | 'totals' | 'upsert' | 'delete' | 'total', RawStatement>

  constructor(database: Database) {
    const raw = (this.raw = database.raw)
    this.st = {
      landing: raw.prepare(`SELECT id, slug FROM landings WHERE id = $id`),
      list: raw.prepare(`SELECT ${SQLITE_INFO} FROM landing_assets WHERE landing_id = $landingId AND id > $afterId ORDER BY id LIMIT $limit`),
      find: raw.prepare(`SELECT ${SQLITE_INFO}, body FROM landing_assets WHERE landing_id = $landingId AND path = $path`),
      bySlug: raw.prepare(`SELECT ${SQLITE_INFO_A}, a.body FROM landing_assets a JOIN landings l ON l.id = a.landing_id WHERE l.slug = $slug AND a.path = $path`),
      bySlugInfo: raw.prepare(`SELECT ${SQLITE_INFO_A} FROM landing_assets a JOIN landings l ON l.id = a.landing_id WHERE l.slug = $slug AND a.path = $path`),
      totals: raw.prepare(`SELECT coalesce(sum(CASE WHEN path = $path THEN 0 ELSE size END), 0) AS others,
        count(CASE WHEN path = $path THEN 1 END) AS existing FROM landing_assets WHERE landing_id = $landingId`),
      upsert: raw.prepare(`INSERT INTO landing_assets (landing_id, path, content_type, size, etag, body, created_at, updated_at)
        VALUES ($landingId, $path, $contentType, $size, $etag, $body, $now, $now)
        ON CONFLICT (landing_id, path) DO UPDATE SET content_type = excluded.content_type, size = excluded.size,
          etag = excluded.etag, body = excluded.body, updated_at = excluded.updated_at
        RETURNING ${SQLITE_INFO}`),
      delete: raw.prepare(`DELETE FROM landing_assets WHERE landing_id = $landingId AND path = $path`),
      total: raw.prepare(`SELECT coalesce(sum(size), 0) AS total FROM landing_assets WHERE landing_id = $landingId`),
    }
  }

  async landing(id: number): Promise<LandingRef | undefined> {
    return this.st.landing.get({ id }) as LandingRef | undefined
  }

  async list(landingId: number, page: Page): Promise<AssetInfo[]> {
    return this.st.list.all({ landingId, afterId: page.afterId, limit: page.limit + 1 }) as AssetInfo[]
  }

  async find(landingId: number, path: string): Promise<AssetRow | undefined> {
    const row = this.st.find.get({ landingId, path }) as AssetRow | undefined
    return row && { ...row, body: bytes(row.body) }
  }

  findBySlug(slug: string, path: string, withBody: true): Promise<AssetRow | undefined>
  findBySlug(slug: string, path: string, withBody: false): Promise<AssetInfo | undefined>
  async findBySlug(slug: string, path: string, withBody: boolean): Promise<AssetInfo | AssetRow | undefined> {
    if (!withBody) return this.st.bySlugInfo.get({ slug, path }) as AssetInfo | undefined
    const row = this.st.bySlug.get({ slug, path }) as AssetRow | undefined
    return row && { ...row, body: bytes(row.body) }
  }

  async put(asset: NewAsset, checkTotal?: CheckTotal): Promise<PutResult> {
    const { landingId, path } = asset
    return this.raw.transaction(() => {
      const landing = this.st.landing.get({ id: landingId }) as LandingRef | undefined
      if (!landing) throw landingNotFound()
      const totals = this.st.totals.get({ landingId, path }) as { others: number; existing: number }
      checkTotal?.(Number(totals.others))
      const row = this.st.upsert.get({
        landingId, path, contentType: asset.contentType, size: asset.body.byteLength, etag: asset.etag, body: asset.body, now: asset.now,
      }) as AssetInfo
      return { row, created: Number(totals.existing) === 0, landing }
    })()
  }

  async delete(landingId: number, path: string): Promise<boolean> {
    return this.st.delete.run({ landingId, path }).changes > 0
  }

  async totalSize(landingId: number): Promise<number> {
    return Number((this.st.total.get({ landingId }) as { total: number }).total)
  }
}

// ── Postgres ──

type Raw = Record<string, unknown>

// int8 columns arrive as strings: the epoch-ms times (id, landing_id and size are int4).
const infoRows = (rows: Raw[]) => numCols(rows, 'id', 'landingId', 'size', 'createdAt', 'updatedAt') as unknown as AssetInfo[]
const fullRows = (rows: Raw[]) => infoRows(rows).map((r) => ({ ...r, body: bytes((r as unknown as Raw).body) })) as AssetRow[]

export class PgAssetStore implements AssetStore {
  private readonly sql: SQL
  // The column lists under their camelCase names (constant SQL text, no values).
  private readonly cols: { info: SQL.Query<unknown>; infoA: SQL.Query<unknown> }

  constructor(database: PgDatabase) {
    const sql = (this.sql = database.sql)
    this.cols = {
      info: sql`id, landing_id AS "landingId", path, content_type AS "contentType", size, etag, created_at AS "createdAt", updated_at AS "updatedAt"`,
      infoA: sql`a.id, a.landing_id AS "landingId", a.path, a.content_type AS "contentType", a.size, a.etag, a.created_at AS "createdAt", a.updated_at AS "updatedAt"`,
    }
  }

  async landing(id: number): Promise<LandingRef | undefined> {
    const [row] = await this.sql`SELECT id, slug FROM landings WHERE id = ${id}::int8`
    return row ? { id: num(row.id), slug: row.slug } : undefined
  }

  async list(landingId: number, page: Page): Promise<AssetInfo[]> {
    return infoRows(await this.sql`SELECT ${this.cols.info} FROM landing_assets
      WHERE landing_id = ${landingId}::int8 AND id > ${page.afterId}::int8 ORDER BY id LIMIT ${page.limit + 1}::int`)
  }

  async find(landingId: number, path: string): Promise<AssetRow | undefined> {
    return fullRows(await this.sql`SELECT ${this.cols.info}, body FROM landing_assets WHERE landing_id = ${landingId}::int8 AND path = ${path}`)[0]
  }

  findBySlug(slug: string, path: string, withBody: true): Promise<AssetRow | undefined>
  findBySlug(slug: string, path: string, withBody: false): Promise<AssetInfo | undefined>
  async findBySlug(slug: string, path: string, withBody: boolean): Promise<AssetInfo | AssetRow | undefined> {
    if (!withBody) {
      return infoRows(await this.sql`SELECT ${this.cols.infoA} FROM landing_assets a JOIN landings l ON l.id = a.landing_id
        WHERE l.slug = ${slug} AND a.path = ${path}`)[0]
    }
    return fullRows(await this.sql`SELECT ${this.cols.infoA}, a.body FROM landing_assets a JOIN landings l ON l.id = a.landing_id
      WHERE l.slug = ${slug} AND a.path = ${path}`)[0]
  }

  async put(asset: NewAsset, checkTotal?: CheckTotal): Promise<PutResult> {
    const { landingId, path, now } = asset
    return this.sql.begin(async (tx) => {
      // NO KEY UPDATE: uploads to this landing take turns, and a delete of the landing (FOR UPDATE) waits;
      // rows that merely reference the landing (FOR KEY SHARE) are not held up.
      const [landing] = await tx`SELECT id, slug FROM landings WHERE id = ${landingId}::int8 FOR NO KEY UPDATE`
      if (!landing) throw landingNotFound()
      const [totals] = await tx`SELECT coalesce(sum(size) FILTER (WHERE path <> ${path}), 0)::int8 AS others,
        coalesce(bool_or(path = ${path}), false) AS existing FROM landing_assets WHERE landing_id = ${landingId}::int8`
      checkTotal?.(num(totals.others))
      const rows = await tx`INSERT INTO landing_assets (landing_id, path, content_type, size, etag, body, created_at, updated_at)
        VALUES (${landingId}::int8, ${path}, ${asset.contentType}, ${asset.body.byteLength}::int, ${asset.etag}, ${asset.body}::bytea, ${now}::bigint, ${now}::bigint)
        ON CONFLICT (landing_id, path) DO UPDATE SET content_type = excluded.content_type, size = excluded.size,
          etag = excluded.etag, body = excluded.body, updated_at = excluded.updated_at
        RETURNING ${this.cols.info}`
      return { row: infoRows(rows)[0]!, created: totals.existing !== true, landing: { id: num(landing.id), slug: landing.slug as string } }
    })
  }

  async delete(landingId: number, path: string): Promise<boolean> {
    const rows = await this.sql`DELETE FROM landing_assets WHERE landing_id = ${landingId}::int8 AND path = ${path} RETURNING id`
    return rows.length > 0
  }

  async totalSize(landingId: number): Promise<number> {
    const [row] = await this.sql`SELECT coalesce(sum(size), 0)::int8 AS total FROM landing_assets WHERE landing_id = ${landingId}::int8`
    return num(row.total)
  }
}
