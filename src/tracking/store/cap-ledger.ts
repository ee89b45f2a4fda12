// The database side of caps (tracking/caps.ts), one twin per engine like the click store: SQLite reads the
// counts the click batches commit (commit.ts adds to cap_counters), Postgres hands out leases of slots.
import type { AnyDatabase } from '../../db/engine'
import type { RawDb } from '../../db/client'
import type { SQL } from 'bun'
import type { CapLedger, CapRule } from '../caps'

// Conversions that count against a cap: the types counted as conversions, not the negative ones (refunds).
const COUNTED = 'JOIN conversion_types t ON t.slug = c.type WHERE t.include_in_conversions = 1 AND t.negative = 0'
const OFFER_SCOPE = 'c.offer_id = $offer'
const ENTRY_SCOPE = 'c.campaign_id = $campaign AND COALESCE(c.path_id, 0) = $path AND c.offer_id = $offer'
const conversionsSql = (scope: string) => `SELECT count(*) AS n FROM conversions c ${COUNTED} AND ${scope} AND c.date >= $since`
/** Postgres numbers its parameters: $1 offer, $2 since, $3 campaign, $4 path. */
const numbered = (text: string) => text.replace(/\$offer/g, '$1').replace(/\$since/g, '$2').replace(/\$campaign/g, '$3').replace(/\$path/g, '$4')

export function createCapLedger(db: AnyDatabase): CapLedger {
  return db.engine === 'postgres' ? pgLedger(db.sql) : sqliteLedger(db.raw)
}

function sqliteLedger(raw: RawDb): CapLedger {
  const clicks = raw.prepare('SELECT clicks FROM cap_counters WHERE cap = $cap AND period = $period')
  const offer = raw.prepare(conversionsSql(OFFER_SCOPE))
  const entry = raw.prepare(conversionsSql(ENTRY_SCOPE))
  return {
    async: false,
    clicks: (cap, period) => Number((clicks.get({ cap, period }) as { clicks: number } | undefined)?.clicks ?? 0),
    conversions: (rule, since) => {
      const r = rule.campaignId === null
        ? offer.get({ offer: rule.offerId, since })
        : entry.get({ offer: rule.offerId, since, campaign: rule.campaignId, path: rule.pathId ?? 0 })
      return Number((r as { n: number } | undefined)?.n ?? 0)
    },
  }
}

function pgLedger(sql: SQL): CapLedger {
  const offerSql = numbered(conversionsSql(OFFER_SCOPE))
  const entrySql = numbered(conversionsSql(ENTRY_SCOPE))
  // The row's latest version locked, then moved up by at most `want` and never past the limit (a lowered limit
  // grants nothing): two instances asking at once queue on the row lock, so their grants add up to ≤ limit.
  const GRANT = `WITH old AS (SELECT clicks FROM cap_counters WHERE cap = $1 AND period = $2 FOR UPDATE)
    UPDATE cap_counters k SET clicks = LEAST(old.clicks + $3, GREATEST(old.clicks, $4)) FROM old
    WHERE k.cap = $1 AND k.period = $2 RETURNING old.clicks AS before, k.clicks AS after`
  return {
    async: true,
    clicks: async (cap, period) => {
      const [r] = await sql`SELECT clicks FROM cap_counters WHERE cap = ${cap} AND period = ${period}`
      return Number(r?.clicks ?? 0)
    },
    conversions: async (rule: CapRule, since: number) => {
      const [r] = rule.campaignId === null
        ? await sql.unsafe(offerSql, [rule.offerId, since])
        : await sql.unsafe(entrySql, [rule.offerId, since, rule.campaignId, rule.pathId ?? 0])
      return Number(r?.n ?? 0)
    },
    grant: async (cap, period, want, limit) => {
      let rows = await sql.unsafe(GRANT, [cap, period, want, limit])
      if (rows.length === 0) {
        await sql`INSERT INTO cap_counters (cap, period, clicks) VALUES (${cap}, ${period}, 0) ON CONFLICT DO NOTHING`
        rows = await sql.unsafe(GRANT, [cap, period, want, limit])
      }
      const r = rows[0] as { before: number; after: number }
      return { granted: Number(r.after) - Number(r.before), total: Number(r.after) }
    },
    release: async (cap, period, n) => {
      await sql`UPDATE cap_counters SET clicks = GREATEST(0, clicks - ${n}) WHERE cap = ${cap} AND period = ${period}`
    },
  }
}
