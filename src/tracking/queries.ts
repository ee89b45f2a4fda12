// Reads of the clicks table on the shared connection (writes go through ClickWriter).
import type { RawDb, RawStatement } from '../db/client'
import type { ClickIndex } from './click-index'

/** What continuing a click needs: its row id, attribution and its own sub1..sub10 for the macros. */
export interface StoredClick {
  id: number
  click_id: string
  campaign_id: number
  source_id: number | null
  offer_id: number | null
  landing_id: number | null
  sub1: string | null; sub2: string | null; sub3: string | null; sub4: string | null; sub5: string | null
  sub6: string | null; sub7: string | null; sub8: string | null; sub9: string | null; sub10: string | null
}

export interface ClickRecord extends StoredClick {
  ip: string | null
  user_agent: string | null
  referrer: string | null
  params: string | null
  bot_reason: string | null
  excluded: number
  is_unique: number
  cost: number
  device_type: string | null
  os: string | null
  browser: string | null
  referrer_domain: string | null
  created_at: number
}

const SUBS = 'sub1, sub2, sub3, sub4, sub5, sub6, sub7, sub8, sub9, sub10'

export class ClickQueries {
  private readonly byClickId: RawStatement
  private readonly recordByClickId: RawStatement

  constructor(raw: RawDb, private readonly index: ClickIndex) {
    this.byClickId = raw.prepare(
      `SELECT id, click_id, campaign_id, source_id, offer_id, landing_id, ${SUBS} FROM clicks WHERE id = $row`,
    )
    this.recordByClickId = raw.prepare(
      `SELECT id, click_id, campaign_id, source_id, offer_id, landing_id, ip, user_agent, referrer, ${SUBS}, params, ` +
        'bot_reason, excluded, is_unique, cost, device_type, os, browser, referrer_domain, created_at ' +
        'FROM clicks WHERE id = $row',
    )
  }

  /** `clickId` must already be a lower-case UUID. Sees every committed click, which is every click handed out. */
  find(clickId: string): StoredClick | undefined {
    const row = this.index.lookup(clickId)
    return row === undefined ? undefined : (this.byClickId.get({ row }) as StoredClick | undefined)
  }

  record(clickId: string): ClickRecord | undefined {
    const row = this.index.lookup(clickId)
    return row === undefined ? undefined : (this.recordByClickId.get({ row }) as ClickRecord | undefined)
  }
}
