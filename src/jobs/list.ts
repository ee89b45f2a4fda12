// The admin job list, written once for both engines (the rest of the job table is the loop's hot-path twin:
// store.ts on SQLite, pg-store.ts on Postgres).
import { sql, whereAll } from '../db/sql'
import type { StoreDb } from '../db/store-db'
import type { JobFilter, JobRecord } from './store'

/** Newest first, cursor = the last id seen. */
export function listJobs(db: StoreDb, f: JobFilter): Promise<JobRecord[]> {
  const pg = db.engine === 'postgres'
  // Sections are bound as one JSON array: the same statement text for any set of them.
  const sections = f.sections && JSON.stringify(f.sections)
  return db.all<JobRecord>(sql`SELECT * FROM jobs ${whereAll([
    f.status !== undefined && sql`status = ${f.status}`,
    f.kind !== undefined && sql`kind = ${f.kind}`,
    f.before !== undefined && sql`id < ${f.before}`,
    // A scan of the forwards: done jobs are pruned, so the table holds recent and open work only.
    f.conversionId !== undefined && (pg
      ? sql`kind = 'source_postback' AND (CAST(payload AS jsonb)->>'conversion_id') = ${String(f.conversionId)}`
      : sql`kind = 'source_postback' AND json_extract(payload, '$.conversion_id') = ${f.conversionId}`),
    // Postgres: bound as text and cast (a parameter typed jsonb would be sent JSON-encoded once more).
    sections !== undefined && (pg
      ? sql`section IN (SELECT jsonb_array_elements_text(CAST(CAST(${sections} AS text) AS jsonb)))`
      : sql`section IN (SELECT value FROM json_each(${sections}))`),
  ])} ORDER BY id DESC LIMIT ${f.limit}`)
}
