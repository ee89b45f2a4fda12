// The static assets of hosted landings (images, CSS, fonts), one module for both engines: the rows of `landing_assets`,
// one per (landing_id, path), with their bytes (a blob on SQLite, bytea on Postgres). They go with their
// landing (ON DELETE CASCADE).
//
// An upload checks and writes in one transaction: the landing still exists, and the bytes of the landing's
// other assets plus this one stay within the quota the caller checks (`checkTotal`). On Postgres the upload
// locks the landing row (FOR NO KEY UPDATE), so two uploads to one landing take turns (neither can slip past
// the quota the other one is about to fill) and a concurrent delete of the landing waits for the upload
// (or the upload sees the landing gone: not_found, never a foreign-key error).
import type { AnyDatabase } from '../../db/engine'
import { raw, sql } from '../../db/sql'
import { storeDb, type StoreDb } from '../../db/store-db'
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

/** The asset store, on either engine. */
export const assetStore = (database: AnyDatabase): AssetStore => new Assets(database)

const INFO = raw(`id, landing_id AS "landingId", path, content_type AS "contentType", size, etag, created_at AS "createdAt", updated_at AS "updatedAt"`)
const INFO_A = raw(`a.id, a.landing_id AS "landingId", a.path, a.content_type AS "contentType", a.size, a.etag, a.created_at AS "createdAt",
  a.updated_at AS "updatedAt"`)

/** A blob as bun:sqlite (Uint8Array), better-sqlite3 or Bun's Postgres client (Buffer) gives it, as a Uint8Array. */
function bytes(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v
  if (v instanceof ArrayBuffer) return new Uint8Array(v)
  throw new Error('landing_assets.body is not a blob')
}

const withBytes = (row: AssetRow | undefined): AssetRow | undefined => row && { ...row, body: bytes(row.body) }

export class Assets implements AssetStore {
  private readonly db: StoreDb

  constructor(database: AnyDatabase) {
    this.db = storeDb(database)
  }

  landing(id: number): Promise<LandingRef | undefined> {
    return this.db.get<LandingRef>(sql`SELECT id, slug FROM landings WHERE id = ${id}`)
  }

  list(landingId: number, page: Page): Promise<AssetInfo[]> {
    return this.db.all<AssetInfo>(sql`SELECT ${INFO} FROM landing_assets
      WHERE landing_id = ${landingId} AND id > ${page.afterId} ORDER BY id LIMIT ${page.limit + 1}`)
  }

  async find(landingId: number, path: string): Promise<AssetRow | undefined> {
    return withBytes(await this.db.get<AssetRow>(sql`SELECT ${INFO}, body FROM landing_assets WHERE landing_id = ${landingId} AND path = ${path}`))
  }

  findBySlug(slug: string, path: string, withBody: true): Promise<AssetRow | undefined>
  findBySlug(slug: string, path: string, withBody: false): Promise<AssetInfo | undefined>
  async findBySlug(slug: string, path: string, withBody: boolean): Promise<AssetInfo | AssetRow | undefined> {
    const row = await this.db.get<AssetRow>(sql`SELECT ${INFO_A}${raw(withBody ? ', a.body' : '')}
      FROM landing_assets a JOIN landings l ON l.id = a.landing_id WHERE l.slug = ${slug} AND a.path = ${path}`)
    return withBody ? withBytes(row) : row
  }

  put(asset: NewAsset, checkTotal?: CheckTotal): Promise<PutResult> {
    const { landingId, path, now } = asset
    const db = this.db
    return db.atomically(function* (q) {
      // NO KEY UPDATE (Postgres): uploads to this landing take turns, and a delete of the landing (FOR UPDATE)
      // waits; rows that merely reference the landing (FOR KEY SHARE) are not held up.
      const landing: LandingRef | undefined = yield q.get<LandingRef>(sql`SELECT id, slug FROM landings WHERE id = ${landingId} ${db.forNoKeyUpdate}`)
      if (!landing) throw landingNotFound()
      const totals: { others: number; existing: number } = yield q.get(sql`
        SELECT coalesce(sum(CASE WHEN path = ${path} THEN 0 ELSE size END), 0) AS others, count(CASE WHEN path = ${path} THEN 1 END) AS existing
        FROM landing_assets WHERE landing_id = ${landingId}`)
      checkTotal?.(totals.others)
      const row: AssetInfo = yield q.get<AssetInfo>(sql`
        INSERT INTO landing_assets (landing_id, path, content_type, size, etag, body, created_at, updated_at)
        VALUES (${landingId}, ${path}, ${asset.contentType}, ${asset.body.byteLength}, ${asset.etag}, ${asset.body}, ${now}, ${now})
        ON CONFLICT (landing_id, path) DO UPDATE SET content_type = excluded.content_type, size = excluded.size,
          etag = excluded.etag, body = excluded.body, updated_at = excluded.updated_at
        RETURNING ${INFO}`)
      return { row, created: totals.existing === 0, landing }
    })
  }

  async delete(landingId: number, path: string): Promise<boolean> {
    return (await this.db.run(sql`DELETE FROM landing_assets WHERE landing_id = ${landingId} AND path = ${path}`)) > 0
  }

  async totalSize(landingId: number): Promise<number> {
    const row = await this.db.get<{ total: number }>(sql`SELECT coalesce(sum(size), 0) AS total FROM landing_assets WHERE landing_id = ${landingId}`)
    return row!.total
  }
}
