// Cursor paging of every admin collection (CONTRACT.md §2): `?limit=` (default 50, capped at 500) and
// `?cursor=` (the last id of the previous page, so pages stay stable while rows are added).
import { invalid } from './errors'

export const DEFAULT_LIMIT = 50
export const MAX_LIMIT = 500

export function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_LIMIT
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1) throw invalid(`limit: must be a whole number from 1 to ${MAX_LIMIT}`)
  return Math.min(Number(raw), MAX_LIMIT)
}

/** The id in a cursor, or undefined for the first page. */
export function parseCursor(raw: string | undefined | null): number | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined
  if (!/^\d{1,15}$/.test(raw)) throw invalid('cursor: invalid cursor')
  return Number(raw)
}

/** One page request of an ascending collection: rows with an id greater than `afterId` come next. */
export interface Page {
  afterId: number
  limit: number
}

/** The cursor is the last id of the previous page, so paging is stable while rows are added. */
export function parsePage(query: { limit?: string; cursor?: string }): Page {
  return { afterId: parseCursor(query.cursor) ?? 0, limit: parseLimit(query.limit) }
}

/** `rows` were fetched with limit + 1: the extra row only says that another page exists. */
export function toPage<R extends { id: number }, T>(rows: R[], page: { limit: number }, render: (row: R) => T): { items: T[]; next_cursor: string | null } {
  const shown = rows.length > page.limit ? rows.slice(0, page.limit) : rows
  return { items: shown.map(render), next_cursor: rows.length > page.limit ? String(shown[shown.length - 1]!.id) : null }
}
