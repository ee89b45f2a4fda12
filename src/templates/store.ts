// The operator's imported templates (custom_templates): one module for both engines (db/store-db.ts).
import type { AnyDatabase } from '../db/engine'
import { sql } from '../db/sql'
import { storeDb, type StoreDb } from '../db/store-db'
import type { Kind } from './model'

export interface StoredTemplate { id: string; body: string }

export class TemplateStore {
  private readonly db: StoreDb

  constructor(database: AnyDatabase) {
    this.db = storeDb(database)
  }

  /** A kind's templates in id order (byte order on both engines). */
  list(kind: Kind): Promise<StoredTemplate[]> {
    return this.db.all<StoredTemplate>(sql`SELECT id, body FROM custom_templates WHERE kind = ${kind} ORDER BY id ${this.db.byteOrder}`)
  }

  get(kind: Kind, id: string): Promise<StoredTemplate | undefined> {
    return this.db.get<StoredTemplate>(sql`SELECT id, body FROM custom_templates WHERE kind = ${kind} AND id = ${id}`)
  }

  /** Every template in one transaction: all or none; an id already stored is replaced (a re-import is idempotent). */
  async upsert(kind: Kind, rows: StoredTemplate[], now: number): Promise<void> {
    await this.db.atomically(function* (q) {
      for (const r of rows) {
        yield q.run(sql`INSERT INTO custom_templates (kind, id, body, created_at, updated_at) VALUES (${kind}, ${r.id}, ${r.body}, ${now}, ${now})
          ON CONFLICT (kind, id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`)
      }
    })
  }

  /** A source's link parameters (the catalog's table): what its template is read back from (zone-format). */
  source(id: number): Promise<{ linkParams: string | null } | undefined> {
    return this.db.get(sql`SELECT link_params AS "linkParams" FROM sources WHERE id = ${id}`)
  }

  /** Whether a row was deleted. */
  async delete(kind: Kind, id: string): Promise<boolean> {
    return (await this.db.run(sql`DELETE FROM custom_templates WHERE kind = ${kind} AND id = ${id}`)) > 0
  }
}
