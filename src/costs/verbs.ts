// Cost updates (issue 29, docs/costs.md): the real spend of a campaign over local days, optionally for one sub
// value, spread over the matching clicks (replacing their cost), one day per transaction; the CSV form; the history.
import { Type } from '@sinclair/typebox'
import { Int } from '../lib/fields'
import { conflict, invalid, notFound } from '../lib/errors'
import { fromCents, parseCents } from '../lib/money'
import { parsePage, toPage } from '../lib/paging'
import { defineVerb, type Actor, type VerbSet } from '../lib/verb'
import type { SettingsStore } from '../context'
import type { ClickCosts, CostScope } from './deps'
import { checkRetention, checkSub, daysOf, parseDate, splitCents, zoneOf, type Day, type Sub } from './plan'
import { readCostCsv, type CsvCostRow } from './csv'
import type { CostUpdateRow, CostUpdateStore, NewCostUpdate } from './store'

export interface CostDeps {
  store: CostUpdateStore
  /** The click store's cost updates (a function: SQLite opens the writer's connection on first use). */
  clicks: () => ClickCosts
  settings: SettingsStore
  now?: () => number
}

const SubInput = Type.Object({
  name: Type.String({ description: 'sub1..sub10 (the clicks\' sub columns) or the name of another link parameter (kept in the click\'s params)' }),
  value: Type.String({ description: 'the value the clicks carry, compared exactly' }),
}, { description: 'only the clicks with this sub value (e.g. a zone); absent: every click of the campaign' })

export const CostUpdateInput = Type.Object({
  campaign_id: Int({ minimum: 1 }),
  from: Type.String({ description: 'first local day, YYYY-MM-DD' }),
  to: Type.String({ description: 'last local day (included), YYYY-MM-DD' }),
  time_zone: Type.Optional(Type.String({ description: 'IANA time zone of the days (default UTC, as reports)' })),
  sub: Type.Optional(SubInput),
  amount: Type.Union([Type.Number(), Type.String()], { description: 'the spend of the whole range in the cost_currency setting, ≥ 0, at most 2 decimals (a number or a decimal string)' }),
})

export const CostImportInput = Type.Object({
  csv: Type.String({ description: 'the CSV text: date,campaign,sub_value,amount[,sub] with an optional header row' }),
  sub: Type.Optional(Type.String({ description: 'which sub the sub_value column holds (sub1..sub10 or a link parameter name), unless a sub column names it per row' })),
  time_zone: Type.Optional(Type.String({ description: 'IANA time zone of the dates (default UTC)' })),
})

export const CostListInput = Type.Object({
  campaign_id: Type.Optional(Type.String({ description: 'only this campaign' })),
  limit: Type.Optional(Type.String()),
  cursor: Type.Optional(Type.String()),
})

/** One planned update: a campaign's days with their clicks and cents. */
interface Plan {
  campaignId: number
  zone: string
  sub: Sub | null
  days: Array<Day & { clicks: number; cents: number }>
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

const who = (actor: Actor) => (actor.kind === 'admin' ? actor.user.email : actor.name)

export const renderCostUpdate = (r: CostUpdateRow) => ({
  id: r.id, campaign_id: r.campaignId, day: r.day, time_zone: r.timeZone,
  sub: r.subName === null ? null : { name: r.subName, value: r.subValue },
  amount: r.amount, currency: r.currency, clicks: r.clicks, created_by: r.createdBy, created_at: new Date(r.createdAt).toISOString(),
})

export function costVerbs(deps: CostDeps) {
  const now = deps.now ?? Date.now
  const scopeOf = (campaignId: number, sub: Sub | null, d: Day): CostScope => ({ campaignId, from: d.from, to: d.to, sub })

  /** Counts each day's clicks and splits the cents; 409 when retention deleted a day or no click matches. */
  async function plan(campaignId: number, zone: string, sub: Sub | null, days: Day[], cents: number, where = ''): Promise<Plan> {
    checkRetention(days, deps.settings.get('raw_click_retention_days'), now(), where)
    const costs = deps.clicks()
    const counts: number[] = []
    for (const d of days) counts.push(await costs.count(scopeOf(campaignId, sub, d)))
    // No clicks and nothing to spread (a zone without spend): nothing to do. With money: never dropped silently.
    if (counts.every((n) => n === 0) && cents > 0) {
      const which = sub ? ` with ${sub.name} = ${JSON.stringify(sub.value)}` : ''
      const span = days.length === 1 ? days[0]!.key : `${days[0]!.key} to ${days[days.length - 1]!.key}`
      throw conflict(`${where}no clicks of campaign ${campaignId}${which} on ${span} (${zone}): the amount would be spread over nothing`)
    }
    const split = splitCents(cents, counts)
    return { campaignId, zone, sub, days: days.map((d, i) => ({ ...d, clicks: counts[i]!, cents: split[i]! })) }
  }

  /** Applies a plan day by day (one transaction each; a replace, so re-sending repairs a run cut short) and records it. */
  async function apply(actor: Actor, p: Plan): Promise<Array<{ day: string; clicks: number; amount: number }>> {
    const costs = deps.clicks()
    const currency = deps.settings.get('cost_currency')
    const done: Array<{ day: string; clicks: number; amount: number }> = []
    const history: NewCostUpdate[] = []
    try {
      for (const d of p.days) {
        if (d.clicks === 0) continue
        // A turn of the event loop between days: on SQLite the replace is synchronous on the click writer's
        // connection, so without it a long range would keep the redirects' batches waiting until its end.
        await nextTurn()
        const clicks = await costs.replace(scopeOf(p.campaignId, p.sub, d), d.cents)
        if (clicks === 0 && d.cents > 0) {
          throw conflict(`the clicks of ${d.key} were gone when the update reached them (deleted since): the days before it are applied, send the update again`)
        }
        done.push({ day: d.key, clicks, amount: fromCents(d.cents) })
        history.push({
          campaignId: p.campaignId, day: d.key, timeZone: p.zone, subName: p.sub?.name ?? null, subValue: p.sub?.value ?? null,
          amount: fromCents(d.cents), currency, clicks, createdBy: who(actor), createdAt: now(),
        })
      }
    } finally {
      await deps.store.add(history)
    }
    return done
  }

  const update = defineVerb({
    name: 'cost-updates.create',
    summary: 'Set the real spend of a campaign over local days (optionally for one sub value): spread over the matching clicks to the cent, replacing their cost',
    permission: 'campaigns:write',
    input: CostUpdateInput,
    async run(actor, input) {
      const zone = zoneOf(input.time_zone)
      const days = daysOf(zone, parseDate(input.from, 'from'), parseDate(input.to, 'to'))
      const sub = input.sub === undefined ? null : checkSub(input.sub.name, input.sub.value, 'sub')
      const cents = parseCents(input.amount, 'amount')
      if (!(await deps.store.campaign({ id: input.campaign_id }))) throw notFound('campaign not found')
      const p = await plan(input.campaign_id, zone.name, sub, days, cents)
      const applied = await apply(actor, p)
      return {
        campaign_id: input.campaign_id, from: days[0]!.key, to: days[days.length - 1]!.key, time_zone: zone.name, sub,
        amount: fromCents(cents), currency: deps.settings.get('cost_currency'),
        clicks: applied.reduce((a, d) => a + d.clicks, 0), days: applied,
      }
    },
  })

  const importCsv = defineVerb({
    name: 'cost-updates.import',
    summary: 'Apply a CSV of cost updates (date,campaign,sub_value,amount[,sub]; campaign by id or slug): every row checked first, then each applied as a one-day update',
    permission: 'campaigns:write',
    input: CostImportInput,
    async run(actor, input) {
      const zone = zoneOf(input.time_zone)
      const defaultSub = input.sub === undefined || input.sub === '' ? null : input.sub
      if (defaultSub !== null) checkSub(defaultSub, 'x', 'sub')
      const rows: CsvCostRow[] = readCostCsv(input.csv, defaultSub)
      // Every row checked (campaign, retention, clicks) before any is applied.
      const plans: Array<{ row: CsvCostRow; plan: Plan; cents: number }> = []
      for (const row of rows) {
        const campaign = await deps.store.campaign(row.campaign)
        if (!campaign) throw invalid(`row ${row.line}, campaign: no campaign ${'id' in row.campaign ? row.campaign.id : JSON.stringify(row.campaign.slug)}`)
        const days = daysOf(zone, row.date, row.date)
        plans.push({ row, cents: row.cents, plan: await plan(campaign.id, zone.name, row.sub, days, row.cents, `row ${row.line}: `) })
      }
      const out = []
      for (const { row, plan: p, cents } of plans) {
        const [applied] = await apply(actor, p)
        out.push({
          row: row.line, date: p.days[0]!.key, campaign_id: p.campaignId, sub: p.sub, amount: fromCents(cents), clicks: applied?.clicks ?? 0,
        })
      }
      return { time_zone: zone.name, currency: deps.settings.get('cost_currency'), rows: out }
    },
  })

  const list = defineVerb({
    name: 'cost-updates.list',
    summary: 'List cost updates (one entry per local day of each update), oldest first',
    permission: 'campaigns:read',
    input: CostListInput,
    async run(_actor, input) {
      let campaignId: number | undefined
      if (input.campaign_id !== undefined && input.campaign_id !== '') {
        campaignId = Number(input.campaign_id)
        if (!/^\d{1,9}$/.test(input.campaign_id) || campaignId < 1) throw invalid('campaign_id: must be a positive integer')
      }
      const page = parsePage(input)
      return toPage(await deps.store.list({ campaignId }, page.afterId, page.limit), page, renderCostUpdate)
    },
  })

  return { update, importCsv, list } satisfies VerbSet
}

export type CostVerbs = ReturnType<typeof costVerbs>
