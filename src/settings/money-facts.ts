// What the cost_currency warning (warnings.ts) needs of the catalog: two reads of small tables (campaigns,
// offers), run when the settings are read and at start, never on a hot path.
import { sql } from '../db/sql'
import type { StoreDb } from '../db/store-db'
import type { MoneyFacts } from './warnings'

export async function moneyFacts(db: StoreDb): Promise<MoneyFacts> {
  const costing = await db.get<{ n: number }>(
    sql`SELECT count(*) AS n FROM campaigns WHERE cost_model = 'param' OR (cost_model = 'cpc' AND cpc > 0)`,
  )
  const offers = await db.all<{ currency: string }>(sql`SELECT DISTINCT upper(currency) AS currency FROM offers`)
  return { costRecorded: (costing?.n ?? 0) > 0, offerCurrencies: offers.map((o) => o.currency) }
}
