// Verbs of the conversion side: recording a conversion (the entry point of webhooks and commerce), the
// conversions and postback-errors lists, and the postback parameter aliases.
import { Type } from '@sinclair/typebox'
import type { EventBus } from '../lib/event-bus'
import { conflict, invalid, notFound } from '../lib/errors'
import { Int } from '../lib/fields'
import { parseCursor, parseLimit, toPage } from '../lib/paging'
import { normalizeClickId } from '../lib/click-id'
import { defineVerb, type VerbSet } from '../lib/verb'
import type { SettingsStore } from '../context'
import { SETTINGS_KEY as ALIASES_KEY, type Aliases } from './aliases'
import type { ConversionTypes } from './conversion-types'
import { conversionToApi, errorToApi, idFilter, statusHistoryToApi, timeFilter } from './conversions'
import { conversionDate } from './parse'
import { MAX_ABS_PAYOUT } from './payout'
import { ERROR_REASONS, MAX_EMAIL, MAX_STATUS, MAX_TID } from './receive'
import type { ConversionRecorder } from './record'
import type { PostbackStore } from './store'
import type { ConversionReads } from './conversion-reads'

export interface ConversionVerbDeps {
  store: PostbackStore
  reads: ConversionReads
  recorder: ConversionRecorder
  types: ConversionTypes
  aliases: Aliases
  settings: SettingsStore
  events: EventBus
}

const text = () => Type.Optional(Type.String())

export function conversionVerbs(deps: ConversionVerbDeps) {
  const { store, reads, recorder, types, aliases, settings, events } = deps

  return {
    record: defineVerb({
      name: 'conversions.record',
      summary: 'Record a conversion for a click, as a postback would (attribution, rollups, forwarding)',
      permission: 'conversions:write',
      input: Type.Object({
        click_id: Type.String({ maxLength: 255 }),
        status: Type.Optional(Type.String({ description: 'a type slug or a received status (mapped like /postback); default sale' })),
        revenue: Type.Optional(Type.Number({ description: "default: the click's offer payout" })),
        currency: Type.Optional(Type.String({ maxLength: 8 })),
        transaction_id: Type.Optional(Type.String({ maxLength: MAX_TID })),
        email: text(),
        date: Type.Optional(Type.String({ description: 'ISO 8601 or epoch seconds/milliseconds; default now' })),
      }),
      async run(_actor, input) {
        const receivedAt = Date.now()
        const clickId = normalizeClickId(input.click_id.trim())
        const click = clickId ? await store.findClick(clickId) : null
        if (!click) throw notFound('click not found')
        if (input.revenue !== undefined && Math.abs(input.revenue) > MAX_ABS_PAYOUT) throw invalid(`revenue: at most ${MAX_ABS_PAYOUT} in absolute value`)
        const result = await recorder.record({
          click,
          type: types.resolve(input.status),
          status: input.status === undefined ? null : input.status.slice(0, MAX_STATUS),
          revenue: input.revenue ?? click.offer_payout ?? 0,
          currency: input.currency ?? click.offer_currency,
          transactionId: input.transaction_id ?? null,
          email: input.email?.trim().slice(0, MAX_EMAIL) || null,
          date: conversionDate(input.date, receivedAt),
          dedupByTransactionId: settings.get('postback_dedup'),
        })
        if (!result.recorded) throw conflict('a conversion with this click and transaction id is already recorded')
        return conversionToApi((await reads.conversionById(result.conversion.id))!)
      },
    }),
    list: defineVerb({
      name: 'conversions.list',
      summary: 'List conversions, newest first (filters click_id, campaign_id, type, from, to)',
      permission: 'conversions:read',
      input: Type.Object({ click_id: text(), campaign_id: text(), type: text(), from: text(), to: text(), limit: text(), cursor: text() }),
      // `from` inclusive and `to` exclusive, both on the conversion date.
      async run(_actor, query) {
        const limit = parseLimit(query.limit)
        const rows = await reads.listConversions({
          clickId: query.click_id ? query.click_id.trim().toLowerCase() : undefined,
          campaignId: idFilter(query, 'campaign_id'),
          type: query.type || undefined,
          from: timeFilter(query, 'from'),
          to: timeFilter(query, 'to'),
          before: parseCursor(query.cursor),
          limit: limit + 1,
        })
        return toPage(rows, { limit }, conversionToApi)
      },
    }),
    get: defineVerb({
      name: 'conversions.get',
      summary: 'Get a conversion, with its status history (oldest first, ending with its current state)',
      permission: 'conversions:read',
      input: Type.Object({ id: Int() }),
      async run(_actor, { id }) {
        const row = await reads.conversionById(id)
        if (!row) throw notFound('conversion not found')
        return { ...conversionToApi(row), status_history: statusHistoryToApi(row, await reads.statusHistory(id)) }
      },
    }),
    listErrors: defineVerb({
      name: 'postback-errors.list',
      summary: 'Postbacks that recorded nothing, and warnings on recorded ones (conversion_id set), newest first (filter reason)',
      permission: 'conversions:read',
      input: Type.Object({ reason: text(), limit: text(), cursor: text() }),
      async run(_actor, query) {
        const limit = parseLimit(query.limit)
        const reason = query.reason || undefined
        if (reason !== undefined && !ERROR_REASONS.includes(reason)) {
          throw invalid(`reason: must be one of ${ERROR_REASONS.join(', ')}`)
        }
        const rows = await reads.listErrors({ reason, before: parseCursor(query.cursor), limit: limit + 1 })
        return toPage(rows, { limit }, errorToApi)
      },
    }),

    getAliases: defineVerb({
      name: 'postback-aliases.get',
      summary: 'Effective query-string names of the 7 postback parameters',
      permission: 'settings:read',
      input: Type.Object({}),
      run: async () => aliases.current(),
    }),
    replaceAliases: defineVerb({
      name: 'postback-aliases.replace',
      summary: 'Replace the alias lists of the named parameters (null restores a default)',
      permission: 'settings:write',
      // Checked by Aliases.replace, so each bad entry gets a message that names it.
      input: Type.Unknown(),
      async run(_actor, body) {
        const map = await aliases.replace(body)
        events.committed('settings.changed', { keys: [ALIASES_KEY] })
        return map
      },
    }),
  } satisfies VerbSet
}

export type ConversionVerbs = ReturnType<typeof conversionVerbs>
