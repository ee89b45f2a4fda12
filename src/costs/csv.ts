// The cost CSV (docs/costs.md): `date,campaign,sub_value,amount` plus an optional `sub` column, with an optional
// header row (then the columns go by name, in any order). Every row is read and checked here, before anything
// is applied: a bad one is a 400 naming its line and column.
import { parseCsv } from '../lib/csv'
import { invalid } from '../lib/errors'
import { parseCents } from '../lib/money'
import { checkSub, parseDate, type Sub } from './plan'

/** Rows per upload: a month of 300 zones; larger files are sent in parts. */
export const MAX_CSV_ROWS = 10_000
const COLUMNS = ['date', 'campaign', 'sub_value', 'amount', 'sub'] as const
type Column = (typeof COLUMNS)[number]

export interface CsvCostRow {
  /** The line of the file (1 = the first, header included). */
  line: number
  date: [number, number, number]
  campaign: { id: number } | { slug: string }
  sub: Sub | null
  cents: number
}

export function readCostCsv(text: string, defaultSub: string | null): CsvCostRow[] {
  const parsed = parseCsv(text)
  if ('error' in parsed) throw invalid(`csv: line ${parsed.line}: ${parsed.error}`)
  const lines = parsed.rows.map((cells, i) => ({ cells: cells.map((c) => c.trim()), line: i + 1 })).filter((r) => r.cells.some((c) => c !== ''))
  let order: Column[] = ['date', 'campaign', 'sub_value', 'amount', 'sub']
  if (lines.length > 0 && lines[0]!.cells[0]!.toLowerCase() === 'date') {
    const header = lines.shift()!
    order = header.cells.map((c, i) => {
      const name = c.toLowerCase() as Column
      if (!COLUMNS.includes(name)) throw invalid(`row ${header.line}, column ${i + 1}: unknown column ${JSON.stringify(c.slice(0, 40))} (${COLUMNS.join(', ')})`)
      return name
    })
    for (const need of ['date', 'campaign', 'amount'] as const) if (!order.includes(need)) throw invalid(`row ${header.line}: the header has no ${need} column`)
    if (new Set(order).size !== order.length) throw invalid(`row ${header.line}: a column is named twice`)
  }
  if (lines.length === 0) throw invalid('csv: no rows')
  if (lines.length > MAX_CSV_ROWS) throw invalid(`csv: at most ${MAX_CSV_ROWS} rows per upload`)
  return lines.map(({ cells, line }) => {
    if (cells.length > order.length) throw invalid(`row ${line}: ${cells.length} columns, at most ${order.length}`)
    const cell = (c: Column) => {
      const i = order.indexOf(c)
      return i < 0 ? '' : (cells[i] ?? '')
    }
    const at = (c: Column) => `row ${line}, ${c}`
    const date = parseDate(cell('date'), at('date'))
    const ref = cell('campaign')
    if (ref === '') throw invalid(`${at('campaign')}: a campaign id or slug is required`)
    const campaign = /^\d{1,9}$/.test(ref) ? { id: Number(ref) } : { slug: ref }
    const value = cell('sub_value')
    let sub: Sub | null = null
    if (value !== '') {
      const name = cell('sub') || defaultSub
      if (!name) throw invalid(`${at('sub')}: which sub the value is (sub1..sub10 or a parameter name): a sub column or the sub query parameter`)
      try {
        sub = checkSub(name, value, 'sub')
      } catch (err) {
        throw invalid(`row ${line}, ${(err as Error).message}`)
      }
    }
    const amount = cell('amount')
    if (amount === '') throw invalid(`${at('amount')}: an amount is required`)
    const cents = parseCents(amount, at('amount'))
    return { line, date, campaign, sub, cents }
  })
}
