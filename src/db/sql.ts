// The dialect layer: one query text for both engines. Admin stores build queries with the `sql` tag and run
// them through a StoreDb (store-db.ts); values are always bound, never spliced. What the engines differ by
// lives here and in store-db.ts, nowhere in a store:
//   placeholders   `$p1` bound by name on SQLite, `$1` on Postgres
//   booleans       bound as 1/0 on both (flags are integer columns on both; better-sqlite3 refuses booleans)
//   int8 columns   arrive as strings from Bun's Postgres client: the reader names them and gets numbers
//   locks          `FOR UPDATE` and table locks on Postgres; nothing on SQLite, whose writer is already alone

/** A query or a fragment of one: fixed text around bound values. Compose with `sql`, `join`, `raw`. */
export class Sql {
  /** `strings.length === values.length + 1`, as in a template call. */
  constructor(readonly strings: readonly string[], readonly values: readonly unknown[]) {}
}

/** Tagged template: `sql\`SELECT * FROM users WHERE id = ${id}\``; an interpolated Sql is spliced in. */
export function sql(strings: TemplateStringsArray | readonly string[], ...values: unknown[]): Sql {
  // No fragment inside: keep the call site's own strings array, so its rendered text is cached (below).
  if (!values.some((v) => v instanceof Sql)) return new Sql(strings, values)
  const outValues: unknown[] = []
  for (const v of values) {
    if (v instanceof Sql) for (const x of v.values) outValues.push(x)
    else outValues.push(v)
  }
  // The same pieces (call sites and constant fragments) compose the same strings array: found again by
  // their identities, so the composed query's text is rendered once too (an enrolment's INSERT per postback).
  const key = compositionKey(strings, values)
  const known = key === null ? undefined : composed.get(key)
  if (known) return new Sql(known, outValues)
  const outStrings: string[] = [strings[0]!]
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (v instanceof Sql) {
      // Splice: the fragment's first string joins ours, its values follow.
      outStrings[outStrings.length - 1] += v.strings[0]!
      for (let j = 1; j < v.strings.length; j++) outStrings.push(v.strings[j]!)
      outStrings[outStrings.length - 1] += strings[i + 1]!
    } else {
      outStrings.push(strings[i + 1]!)
    }
  }
  Object.freeze(outStrings)
  if (key !== null) {
    // Bounded: pieces built per call (join(), raw() of varying text) make keys that never come back.
    if (composed.size >= 4096) composed.clear()
    composed.set(key, outStrings)
  }
  return new Sql(outStrings, outValues)
}

const pieceIds = new WeakMap<readonly string[], number>()
let nextPieceId = 1
const composed = new Map<string, readonly string[]>()

/** The identities of a composition's frozen pieces, or null when one is not frozen (built per call). */
function compositionKey(strings: readonly string[], values: readonly unknown[]): string | null {
  const id = (a: readonly string[]): number | null => {
    if (!Object.isFrozen(a)) return null
    let n = pieceIds.get(a)
    if (n === undefined) pieceIds.set(a, (n = nextPieceId++))
    return n
  }
  const outer = id(strings)
  if (outer === null) return null
  let key = String(outer)
  for (const v of values) {
    if (!(v instanceof Sql)) { key += ',v'; continue }
    const inner = id(v.strings)
    if (inner === null) return null
    key += `,${inner}`
  }
  return key
}

/** Text from the code itself (a column or table name from a fixed list): never from input. */
export const raw = (text: string): Sql => new Sql(Object.freeze([text]), [])

export const empty = raw('')

/** Fragments joined by `separator` (`, ` by default; ` AND ` for conditions). */
export function join(parts: readonly Sql[], separator = ', '): Sql {
  if (parts.length === 0) return empty
  const strings = ['', ...parts.slice(1).map(() => separator), '']
  return sql(strings, ...parts)
}

/** `(v1, v2, …)` for `IN`; an empty list becomes `(NULL)`, which matches nothing on either engine. */
export const inList = (values: readonly unknown[]): Sql =>
  values.length === 0 ? raw('(NULL)') : sql`(${join(values.map((v) => sql`${v}`))})`

/** `WHERE a AND b` from the conditions given (undefined ones left out), or nothing. */
export function whereAll(conditions: ReadonlyArray<Sql | undefined | false>): Sql {
  const kept = conditions.filter((c): c is Sql => c instanceof Sql)
  return kept.length === 0 ? empty : sql`WHERE ${join(kept, ' AND ')}`
}

/** A value as both engines bind it. */
function bindable(v: unknown): unknown {
  if (v === undefined) throw new Error('sql: an undefined value was bound (use null)')
  return typeof v === 'boolean' ? (v ? 1 : 0) : v
}

/**
 * Rendered texts of the queries written without fragments, by their call site's strings array (template
 * arrays are frozen and the same object on every call): a hot statement (a webhook's order upsert) is not
 * joined again, and the statement cache finds it by the same string.
 */
const sqliteTexts = new WeakMap<readonly string[], string>()
const pgTexts = new WeakMap<readonly string[], string>()

function textOf(q: Sql, cache: WeakMap<readonly string[], string>, placeholder: (n: number) => string): string {
  const cacheable = Object.isFrozen(q.strings)
  let text = cacheable ? cache.get(q.strings) : undefined
  if (text !== undefined) return text
  text = q.strings[0]!
  for (let i = 1; i < q.strings.length; i++) text += placeholder(i) + q.strings[i]
  if (cacheable) cache.set(q.strings, text)
  return text
}

const sqlitePlaceholder = (n: number) => `$p${n}`
const pgPlaceholder = (n: number) => `$${n}`

/** SQLite: `$p1…` placeholders with their values by name. */
export function renderSqlite(q: Sql): { text: string; params: Record<string, unknown> } {
  const params: Record<string, unknown> = {}
  for (let i = 0; i < q.values.length; i++) params[`p${i + 1}`] = bindable(q.values[i])
  return { text: textOf(q, sqliteTexts, sqlitePlaceholder), params }
}

/** Postgres: `$1…` placeholders with their values in order. */
export function renderPg(q: Sql): { text: string; values: unknown[] } {
  const values: unknown[] = []
  for (let i = 0; i < q.values.length; i++) values.push(bindable(q.values[i]))
  return { text: textOf(q, pgTexts, pgPlaceholder), values }
}
