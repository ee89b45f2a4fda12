// CSV output (RFC 4180: comma, CRLF, double quotes) streamed in chunks.
//
// Spreadsheet formula injection: a text cell that starts with = + - @ (or a tab or carriage return) would
// be run as a formula by Excel/LibreOffice/Sheets, and sub values, labels and statuses come from strangers.
// Spreadsheets also skip leading spaces and line breaks before a formula sign, and some read the
// full-width signs (＝ ＋ － ＠) as their ASCII twins, so those leads count too. Such text cells get a
// leading apostrophe ('=1+1). Numbers are written as numbers (a negative profit stays -3.5), so the
// defence only ever changes text.
import { errorFields, log } from './log'

export type Cell = string | number | null | undefined

/** \s covers spaces, tabs, line breaks, NBSP and the ideographic space. */
const FORMULA_START = /^(?:[\t\r]|\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/
const NEEDS_QUOTES = /[",\r\n]/

export function csvCell(v: Cell): string {
  if (v === null || v === undefined) return ''
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : ''
  let s = FORMULA_START.test(v) ? `'${v}` : v
  if (NEEDS_QUOTES.test(s)) s = `"${s.replace(/"/g, '""')}"`
  return s
}

export const csvLine = (cells: readonly Cell[]): string => cells.map(csvCell).join(',') + '\r\n'

/**
 * A CSV body produced chunk by chunk: `next()` returns the next block of text, or null at the end.
 * Each pull does a bounded amount of work, so a large export never sits in memory whole. `next` may be
 * async (a Postgres read); the stream asks for the next chunk only once the previous one arrived.
 */
export function csvStream(next: () => string | null | Promise<string | null>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  // The client may go away mid-export: the stream is cancelled, and a read still in flight must then
  // neither enqueue into the closed stream nor be logged as a failure.
  let cancelled = false
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: string | null
      try {
        chunk = await next()
      } catch (err) {
        if (cancelled) return
        log.error('CSV export failed', errorFields(err))
        controller.error(err)
        return
      }
      if (cancelled) return
      if (chunk === null) controller.close()
      else controller.enqueue(encoder.encode(chunk))
    },
    cancel() {
      cancelled = true
    },
  })
}

/** A file name made of safe characters only. */
export const fileName = (parts: string[]) => parts.join('-').replace(/[^A-Za-z0-9._-]+/g, '_') + '.csv'

export function csvHeaders(name: string): Record<string, string> {
  return {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${name}"`,
    'cache-control': 'no-store',
  }
}

/**
 * Parses CSV text (RFC 4180: commas, double quotes with "" inside, CRLF or LF line ends; a UTF-8 BOM and a
 * last line end are allowed) into rows of cells. Returns the error of the first malformed line instead of
 * guessing: a quote left open, or text right after a closing quote.
 */
export function parseCsv(text: string): { rows: string[][] } | { error: string; line: number } {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  let afterQuote = false
  let line = 1
  /** Where the open quote began (a quote never closed is reported there). */
  let quoteLine = 1
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  const endCell = () => {
    row.push(cell)
    cell = ''
    afterQuote = false
  }
  for (; i < text.length; i++) {
    const ch = text[i]!
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"'
          i++
        } else {
          quoted = false
          afterQuote = true
        }
      } else {
        if (ch === '\n') line++
        cell += ch
      }
      continue
    }
    if (ch === ',') endCell()
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++
      endCell()
      rows.push(row)
      row = []
      line++
    } else if (afterQuote) return { error: 'text after a closing quote', line }
    else if (ch === '"' && cell === '') {
      quoted = true
      quoteLine = line
    }
    else cell += ch
  }
  if (quoted) return { error: 'a quote is never closed', line: quoteLine }
  if (cell !== '' || row.length > 0 || afterQuote) {
    endCell()
    rows.push(row)
  }
  return { rows }
}
