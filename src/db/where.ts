// The one builder of optional-filter WHERE clauses for list queries (jobs, conversions, postback errors).
// Column names and operators come from the store's own fixed text; values are always bound by name.

/** `[condition with one $param, param name, value]`; a condition whose value is undefined is left out. */
export type Condition = readonly [sql: string, param: string, value: unknown]

export interface Where {
  /** "" or "WHERE a AND b", ready to splice between FROM and ORDER BY. */
  sql: string
  params: Record<string, unknown>
}

export function where(conditions: readonly Condition[]): Where {
  const parts: string[] = []
  const params: Record<string, unknown> = {}
  for (const [sql, param, value] of conditions) {
    if (value === undefined) continue
    parts.push(sql)
    params[param] = value
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params }
}
