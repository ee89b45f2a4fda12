// Cursor paging of every admin collection (CONTRACT.md §2): `?limit=` (default 50, capped at 500) and
// `?cursor=` (the last id of the previous page, so pages stay stable while rows are added).
import { badRequest } from './errors'

export const DEFAULT_LIMIT = 50
export const MAX_LIMIT = 500

export function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_LIMIT
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1) throw badRequest(`limit: must be a whole number from 1 to ${MAX_LIMIT}`)
  return Math.min(Number(raw), MAX_LIMIT)
}

/** The id in a cursor, or undefined for the first page. */
export function parseCursor(raw: string | undefined | null): number | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined
  if (!/^\d{1,15}$/.test(raw)) throw badRequest('cursor: invalid cursor')
  return Number(raw)
}

/** `rows` were fetched with limit + 1: the extra row only says that another page exists. */
export function pageOf<R extends { id: number }, T>(rows: R[], limit: number, render: (row: R) => T): { items: T[]; next_cursor: string | null } {
  const shown = rows.length > limit ? rows.slice(0, limit) : rows
  return { items: shown.map(render), next_cursor: rows.length > limit ? String(shown[shown.length - 1]!.id) : null }
}
