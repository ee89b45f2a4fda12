// CSV: escaping (quotes, commas, line breaks), the spreadsheet formula defence, the report's CSV form
// (one line per second-level row) and the streamed conversions export.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { testDb } from '../helpers/db'
import { startServer, type TestServer } from '../helpers/server'
import { csvCell, csvLine } from '../../src/lib/csv'
import { addClick, catalog, report, SERVER_TIMEOUT_MS } from './seed'

/** RFC 4180 reader: rows of cells. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"'
        i++
      } else if (ch === '"') quoted = false
      else cell += ch
    } else if (ch === '"') quoted = true
    else if (ch === ',') {
      row.push(cell)
      cell = ''
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
      i++
    } else cell += ch
  }
  if (cell !== '' || row.length) throw new Error('CSV does not end with CRLF')
  return rows
}

describe('csvCell', () => {
  test('quotes cells with commas, quotes or line breaks, doubling inner quotes', () => {
    expect(csvCell('plain')).toBe('plain')
    expect(csvCell('a,b')).toBe('"a,b"')
    expect(csvCell('say "hi"')).toBe('"say ""hi"""')
    expect(csvCell('two\nlines')).toBe('"two\nlines"')
    expect(csvCell('cr\rhere')).toBe('"cr\rhere"')
    expect(csvCell(null)).toBe('')
    expect(csvCell(undefined)).toBe('')
    expect(csvCell('')).toBe('')
  })

  test('prefixes text starting with = + - @ tab or CR with an apostrophe, and leaves numbers alone', () => {
    expect(csvCell('=1+1')).toBe("'=1+1")
    expect(csvCell('+33 1')).toBe("'+33 1")
    expect(csvCell('-5')).toBe("'-5")
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)")
    expect(csvCell('\tx')).toBe("'\tx")
    expect(csvCell('=HYPERLINK("http://x.example","y")')).toBe('"\'=HYPERLINK(""http://x.example"",""y"")"')
    expect(csvCell('a=b')).toBe('a=b')
    expect(csvCell(-3.5)).toBe('-3.5')
    expect(csvCell(0)).toBe('0')
    expect(csvCell(Number.NaN)).toBe('')
  })

  test('also neutralises formula signs behind leading whitespace or line breaks, and the full-width signs', () => {
    expect(csvCell(' =1+1')).toBe("' =1+1")
    expect(csvCell('   @SUM(A1)')).toBe("'   @SUM(A1)")
    expect(csvCell('\n=cmd|calc')).toBe('"\'\n=cmd|calc"')
    expect(csvCell('\r\n+1')).toBe('"\'\r\n+1"')
    expect(csvCell('\u00a0-2')).toBe("'\u00a0-2")
    expect(csvCell('\u3000=1')).toBe("'\u3000=1")
    expect(csvCell('＝1+1')).toBe("'＝1+1")
    expect(csvCell('＋1')).toBe("'＋1")
    expect(csvCell('－1')).toBe("'－1")
    expect(csvCell('＠x')).toBe("'＠x")
    expect(csvCell(' \t＝1')).toBe("' \t＝1")
    expect(csvCell('\r')).toBe('"\'\r"')
    // Whitespace before ordinary text, and signs later in the cell, stay as they are.
    expect(csvCell(' plain')).toBe(' plain')
    expect(csvCell('\nnext')).toBe('"\nnext"')
    expect(csvCell('a ＝ b')).toBe('a ＝ b')
  })

  test('lines end with CRLF', () => {
    expect(csvLine(['a', 1, null, 'b,c'])).toBe('a,1,,"b,c"\r\n')
  })
})

let s: TestServer
const ids: Record<string, number> = {}
beforeAll(async () => {
  s = await startServer()
  const c = catalog(s)
  ids.o1 = await c.offer('Offer "one", the first')
  ids.o2 = await c.offer('=cmd|calc')
  ids.camp = await c.campaign({ name: 'Spring, sale', offers: [ids.o1, ids.o2] })
  const subs = ['=HYPERLINK("http://evil.example")', 'a,b', 'he said "hi"', 'line\nbreak', '-5', '@cmd', 'plain']
  for (const [i, sub1] of subs.entries()) await addClick(s, { campaign: ids.camp, offer: i % 2 ? ids.o2 : ids.o1, sub1, cost: 0.5 })
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

describe('report CSV', () => {
  test('streams the rows with a header, text/csv and an attachment file name', async () => {
    const res = await s.api('GET', '/admin/api/reports?group_by=sub1&format=csv&sort=key')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="report-sub1-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv"$/)
    const rows = parseCsv(res.text)
    expect(rows[0]).toEqual([
      'sub1', 'clicks', 'unique_clicks', 'bot_clicks', 'landing_views', 'landing_clicks', 'landing_ctr', 'conversions', 'revenue', 'cost', 'profit', 'roi', 'cr', 'epc',
      'type_sale', 'type_lead', 'type_trial', 'type_install', 'type_reject', 'type_chargeback',
    ])
    expect(rows.slice(1).map((r) => r[0])).toEqual([
      "'-5", "'=HYPERLINK(\"http://evil.example\")", "'@cmd", 'a,b', 'he said "hi"', 'line\nbreak', 'plain',
    ])
    // Numbers stay numbers: a negative profit is not defused; null ratios are empty cells.
    expect(rows[1]).toEqual(["'-5", '1', '1', '0', '0', '0', '', '0', '0', '0.5', '-0.5', '-100', '0', '0', '0', '0', '0', '0', '0', '0'])
  })

  test('two levels give one line per second-level row with both keys and names', async () => {
    const res = await s.api('GET', '/admin/api/reports?group_by=campaign,offer&format=csv&sort=key')
    const rows = parseCsv(res.text)
    expect(rows[0]!.slice(0, 5)).toEqual(['campaign_id', 'campaign_name', 'offer_id', 'offer_name', 'clicks'])
    expect(rows.slice(1).map((r) => r.slice(0, 5))).toEqual([
      [String(ids.camp), 'Spring, sale', String(ids.o1), 'Offer "one", the first', '4'],
      [String(ids.camp), 'Spring, sale', String(ids.o2), "'=cmd|calc", '3'],
    ])
    expect(res.text.split('\r\n')[1]).toStartWith(`${ids.camp},"Spring, sale",${ids.o1},"Offer ""one"", the first",4,`)
  })

  test('CSV ignores paging and exports every row in the report order', async () => {
    const json = (await report(s, 'group_by=sub1&sort=clicks&limit=2')).body
    expect(json.rows).toHaveLength(2)
    const rows = parseCsv((await s.api('GET', '/admin/api/reports?group_by=sub1&sort=clicks&limit=2&format=csv')).text)
    expect(rows).toHaveLength(1 + 7)
  })
})

describe('conversions export', () => {
  const base = Date.UTC(2026, 2, 1)
  beforeAll(async () => {
    const rows = Array.from({ length: 2500 }, (_, i) => ({
      clickId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, campaign: i % 5 === 0 ? 999 : ids.camp, offer: ids.o1,
      type: i % 10 === 0 ? 'chargeback' : 'sale', status: i === 7 ? 'weird, "status"' : i === 8 ? '=2+2' : 'approved',
      revenue: i % 10 === 0 ? -1.5 : 2.25, cur: 'USD', tid: i === 9 ? '+tid' : `t${i}`, date: base + Math.floor(i / 7) * 60_000,
    }))
    // 2500 conversions; runs of equal dates straddle the 1000-row chunks, so the keyset must use (date, id).
    // Written 250 rows per INSERT (in id order), each row with its own numbered parameters.
    const db = testDb(s)
    for (let start = 0; start < rows.length; start += 250) {
      const params: Record<string, unknown> = {}
      const values = rows.slice(start, start + 250).map((r, j) => {
        for (const [k, v] of Object.entries(r)) params[`${k}_${j}`] = v
        return `(1, $clickId_${j}, $campaign_${j}, NULL, $offer_${j}, NULL, $type_${j}, $status_${j}, $revenue_${j}, $cur_${j}, $tid_${j}, $date_${j}, $date_${j})`
      })
      await db.run(
        'INSERT INTO conversions (click_row_id, click_id, campaign_id, source_id, offer_id, landing_id, type, status, revenue, currency, transaction_id, date, created_at) ' +
          `VALUES ${values.join(', ')}`,
        params,
      )
    }
  }, SERVER_TIMEOUT_MS)

  test('streams every conversion of the range in date order, 12 columns, escaped', async () => {
    const res = await s.api('GET', '/admin/api/reports/conversions?format=csv&from=2026-03-01&to=2026-03-05')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="conversions-2026-03-01-2026-03-04.csv"')
    expect(res.headers.get('content-length')).toBeNull()
    const rows = parseCsv(res.text)
    expect(rows[0]).toEqual(['id', 'date', 'click_id', 'type', 'status', 'revenue', 'currency', 'transaction_id', 'campaign_id', 'source_id', 'offer_id', 'landing_id'])
    const data = rows.slice(1)
    expect(data).toHaveLength(2500)
    expect(new Set(data.map((r) => r[0])).size).toBe(2500)
    const dates = data.map((r) => Date.parse(r[1]!))
    expect(dates).toEqual([...dates].sort((a, b) => a - b))
    expect(data[0]).toEqual([data[0]![0]!, '2026-03-01T00:00:00.000Z', '00000000-0000-4000-8000-000000000000', 'chargeback', 'approved', '-1.5', 'USD', 't0', '999', '', String(ids.o1), ''])
    expect(data[7]![4]).toBe('weird, "status"')
    expect(data[8]![4]).toBe("'=2+2")
    expect(data[9]![7]).toBe("'+tid")
  })

  test('applies the filters and the range (from inclusive, to exclusive)', async () => {
    const byCampaign = parseCsv((await s.api('GET', `/admin/api/reports/conversions?from=2026-03-01&to=2026-03-05&campaign_id=999`)).text)
    expect(byCampaign.length - 1).toBe(500)
    expect(byCampaign.slice(1).every((r) => r[8] === '999')).toBe(true)
    const firstHour = parseCsv((await s.api('GET', '/admin/api/reports/conversions?from=2026-03-01T00:00Z&to=2026-03-01T00:02Z')).text)
    expect(firstHour.length - 1).toBe(14)
    const none = parseCsv((await s.api('GET', '/admin/api/reports/conversions?from=2026-04-01&to=2026-04-02')).text)
    expect(none).toHaveLength(1)
  })
})
