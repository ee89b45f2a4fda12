// Money as the dashboard shows it, everywhere an amount appears: two decimals, the currency after, and money
// that goes back (a chargeback, a refund) with its minus sign: "-2.50 USD". The sign is the ASCII
// hyphen-minus, as the report table, the CSV export and the API write it (copied into a spreadsheet it
// stays a number).

/** "12.30 EUR", "-2.50 USD"; no currency: the amount alone. Never "-0.00". */
export function money(amount: number, currency?: string | null): string {
  const fixed = (Math.round(amount * 100) / 100 || 0).toFixed(2)
  return currency ? `${fixed} ${currency}` : fixed
}

/**
 * What a conversion counts: the API keeps revenue as the payout was received (spec: revenue = payout), and a
 * type flagged negative (chargeback) counts as minus its amount whatever sign it arrived with (reports do the
 * same); commerce reversals are stored negative already.
 */
export function countedRevenue(c: { revenue: number; type: string }, negativeTypes: ReadonlySet<string>): number {
  return negativeTypes.has(c.type) ? -Math.abs(c.revenue) : c.revenue
}

/** The class of a profit or ROI value: `neg` for a loss, `pos` for a win, none at zero or without a value (the sign stays in the text). */
export const signClass = (x: number | null | undefined): 'neg' | 'pos' | null => (typeof x !== 'number' || x === 0 ? null : x < 0 ? 'neg' : 'pos')

/** A refund (money back to the buyer): shown as a negative amount; none: "—". */
export function refundAmount(amount: number, currency?: string | null): string {
  return amount > 0 ? money(-amount, currency) : '—'
}

/**
 * A money field of a report with several currencies (the API's `money` entries): each currency's amount
 * side by side, never added: "139.30 USD · 84.00 EUR". Ratios (roi) keep two decimals too; null ones are left out.
 */
export function perCurrency(entries: ReadonlyArray<Record<string, unknown>>, metric: string): string {
  const parts = entries.filter((e) => typeof e[metric] === 'number').map((e) => money(e[metric] as number, e.currency as string))
  return parts.length ? parts.join(' · ') : '—'
}
