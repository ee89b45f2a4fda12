// The click as the tracker knows it, and the one list of its columns. The INSERT, the positional binding,
// the rollup fields and every SELECT of the click store are derived from CLICK_COLUMNS, so a new column
// is one line here (plus its migration).

// The click and the click.committed payload are event payload types: they live in events.ts.
import type { Click } from '../../events'
export type { Click, CommittedClicks } from '../../events'

/** Field → column, in INSERT order. */
export const CLICK_COLUMNS = [
  ['clickId', 'click_id'], ['campaignId', 'campaign_id'], ['sourceId', 'source_id'], ['offerId', 'offer_id'],
  ['landingId', 'landing_id'], ['ip', 'ip'], ['userAgent', 'user_agent'], ['referrer', 'referrer'],
  ['sub1', 'sub1'], ['sub2', 'sub2'], ['sub3', 'sub3'], ['sub4', 'sub4'], ['sub5', 'sub5'],
  ['sub6', 'sub6'], ['sub7', 'sub7'], ['sub8', 'sub8'], ['sub9', 'sub9'], ['sub10', 'sub10'],
  ['params', 'params'], ['botReason', 'bot_reason'], ['excluded', 'excluded'], ['isUnique', 'is_unique'],
  ['cost', 'cost'], ['deviceType', 'device_type'], ['os', 'os'], ['browser', 'browser'],
  ['referrerDomain', 'referrer_domain'], ['landingViewedAt', 'landing_viewed_at'], ['landingClickedAt', 'landing_clicked_at'],
  ['createdAt', 'created_at'],
  ['country', 'country'], ['asn', 'asn'], ['asOrg', 'as_org'], ['connection', 'connection'], ['language', 'language'],
  ['osVersion', 'os_version'], ['browserVersion', 'browser_version'], ['region', 'region'], ['city', 'city'],
  ['pathId', 'path_id'],
] as const satisfies ReadonlyArray<readonly [keyof Click, string]>

export type ClickField = (typeof CLICK_COLUMNS)[number][0]
const COLUMN_OF = new Map<string, string>(CLICK_COLUMNS)

/** Field names in column order: the positional binding walks this array. */
export const CLICK_FIELDS: readonly ClickField[] = CLICK_COLUMNS.map(([f]) => f)
/** Positions (in CLICK_FIELDS) of the boolean fields, bound as 0/1. */
const FLAG_AT: readonly boolean[] = CLICK_FIELDS.map((f) => f === 'excluded' || f === 'isUnique')

export const SUB_FIELDS = ['sub1', 'sub2', 'sub3', 'sub4', 'sub5', 'sub6', 'sub7', 'sub8', 'sub9', 'sub10'] as const

/** `INSERT INTO clicks (…) VALUES ` followed by `n` tuples of placeholders. */
export function insertSql(n: number): string {
  const tuple = `(${new Array(CLICK_FIELDS.length).fill('?').join(', ')})`
  return `INSERT INTO clicks (${CLICK_COLUMNS.map(([, c]) => c).join(', ')}) VALUES ${new Array(n).fill(tuple).join(', ')}`
}

/** `column AS field, …`: a SELECT whose rows come out Click-shaped (flags as 0/1). */
export function selectList(fields: readonly ClickField[]): string {
  return fields.map((f) => (COLUMN_OF.get(f) === f ? f : `${COLUMN_OF.get(f)} AS ${f}`)).join(', ')
}

/** Writes clicks[from, to) into `values` in column order, from index 0 (the values of one multi-row INSERT). */
export type ClickBinder = (values: unknown[], clicks: readonly Click[], from: number, to: number) => void

/**
 * Generated once from CLICK_COLUMNS: one plain property read per column (`v[k + 3] = c.offerId`), which
 * the JIT keeps monomorphic, where a loop over field names would be one megamorphic keyed read per value
 * on the redirect's commit path. The caller reuses `values` across slices; nothing is allocated per click.
 */
export const bindClicks = new Function(
  'v', 'clicks', 'from', 'to',
  'for (let i = from, k = 0; i < to; i++, k += ' + CLICK_FIELDS.length + ') {\n  const c = clicks[i]\n' +
    CLICK_FIELDS.map((f, j) => `  v[k + ${j}] = ${FLAG_AT[j] ? `c.${f} ? 1 : 0` : `c.${f}`}\n`).join('') +
    '}',
) as ClickBinder

/** The fields a click's rollup rows depend on (country and path: the targeting rollups). */
export const ROLLUP_FIELDS = [
  'createdAt', 'campaignId', 'sourceId', 'offerId', 'landingId', 'botReason', 'excluded', 'isUnique', 'cost',
  'landingViewedAt', 'landingClickedAt', 'country', 'pathId',
] as const satisfies readonly ClickField[]
/** A Click, or a stored click read back with its flags as 0/1. */
export type RollupClick = { [K in Exclude<(typeof ROLLUP_FIELDS)[number], 'excluded' | 'isUnique'>]: Click[K] } & {
  excluded: boolean | number
  isUnique: boolean | number
}

/**
 * What continuing a click needs: its row, attribution, whether it already went through its landing or was
 * flagged, and its own sub1..sub10 and parameters for the macros.
 */
export const CONTINUE_FIELDS = [
  'clickId', 'campaignId', 'sourceId', 'offerId', 'landingId', 'botReason', 'landingClickedAt', 'params', ...SUB_FIELDS, 'pathId',
  'createdAt',
] as const satisfies readonly ClickField[]
export type ContinuableClick = Pick<Click, (typeof CONTINUE_FIELDS)[number]> & { row: number }

/** A stored click with its row id. */
export type StoredClick = Click & { row: number }

/** A complete Click from the fields an import knows (seeds, imports): everything else empty. */
export function newClick(f: Pick<Click, 'clickId' | 'campaignId' | 'createdAt'> & Partial<Click>): Click {
  return {
    clickId: f.clickId, campaignId: f.campaignId, sourceId: f.sourceId ?? null, offerId: f.offerId ?? null,
    landingId: f.landingId ?? null, ip: f.ip ?? null, userAgent: f.userAgent ?? null, referrer: f.referrer ?? null,
    sub1: f.sub1 ?? null, sub2: f.sub2 ?? null, sub3: f.sub3 ?? null, sub4: f.sub4 ?? null, sub5: f.sub5 ?? null,
    sub6: f.sub6 ?? null, sub7: f.sub7 ?? null, sub8: f.sub8 ?? null, sub9: f.sub9 ?? null, sub10: f.sub10 ?? null,
    params: f.params ?? null, botReason: f.botReason ?? null, excluded: f.excluded ?? false, isUnique: f.isUnique ?? false,
    cost: f.cost ?? 0, deviceType: f.deviceType ?? null, os: f.os ?? null, browser: f.browser ?? null,
    referrerDomain: f.referrerDomain ?? null, landingViewedAt: f.landingViewedAt ?? null,
    landingClickedAt: f.landingClickedAt ?? null, createdAt: f.createdAt,
    country: f.country ?? null, asn: f.asn ?? null, asOrg: f.asOrg ?? null, connection: f.connection ?? null,
    language: f.language ?? null, osVersion: f.osVersion ?? null, browserVersion: f.browserVersion ?? null,
    region: f.region ?? null, city: f.city ?? null, pathId: f.pathId ?? null,
  }
}
