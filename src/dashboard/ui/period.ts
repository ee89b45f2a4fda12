// Periods of the cockpit (issue 30): the presets a buyer picks (Today, Yesterday, 7 days, 30 days, this month,
// custom) as local dates in the instance's time zone, and the report API query they become. Dates are local
// calendar days (YYYY-MM-DD); `to` is exclusive (the next local midnight), as /admin/api/reports reads it.

export const PRESETS = [
  { id: 'today', label: 'Today' },
  { id: 'yesterday', label: 'Yesterday' },
  { id: '7d', label: '7 days' },
  { id: '30d', label: '30 days' },
  { id: 'month', label: 'This month' },
  { id: 'custom', label: 'Custom' },
] as const
export type Preset = (typeof PRESETS)[number]['id']
export const isPreset = (s: string | null | undefined): s is Preset => PRESETS.some((p) => p.id === s)

export interface Period {
  preset: Preset
  /** First local day, YYYY-MM-DD. */
  from: string
  /** Local day after the last one (exclusive), YYYY-MM-DD. */
  to: string
  tz: string
}

const pad = (n: number) => String(n).padStart(2, '0')

/** Local wall-clock parts of an instant in a zone (the browser's Intl: same IANA data as the server's). */
export function localParts(t: number, tz: string): { y: number; mo: number; d: number; h: number; mi: number } {
  const p: Record<string, number> = {}
  const fmt = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' })
  for (const part of fmt.formatToParts(new Date(t))) if (part.type !== 'literal') p[part.type] = Number(part.value)
  return { y: p.year!, mo: p.month!, d: p.day!, h: p.hour!, mi: p.minute! }
}

/** The local calendar day of an instant, YYYY-MM-DD. */
export function localDay(t: number, tz: string): string {
  const p = localParts(t, tz)
  return `${p.y}-${pad(p.mo)}-${pad(p.d)}`
}

/** A calendar day plus n days (calendar arithmetic: no time zone involved). */
export function addDays(day: string, n: number): string {
  const t = Date.parse(`${day}T00:00:00Z`) + n * 86_400_000
  return new Date(t).toISOString().slice(0, 10)
}

const DAY = /^\d{4}-\d{2}-\d{2}$/
export const isDay = (s: string | null | undefined): s is string => !!s && DAY.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`))

/**
 * The period of a preset in `tz` at `now`. custom: `from` and `last` (inclusive) as the buyer typed them;
 * a missing or reversed custom range falls back to the last 7 days.
 */
export function periodOf(preset: Preset, tz: string, now = Date.now(), custom?: { from?: string | null; last?: string | null }): Period {
  const today = localDay(now, tz)
  switch (preset) {
    case 'today': return { preset, from: today, to: addDays(today, 1), tz }
    case 'yesterday': return { preset, from: addDays(today, -1), to: today, tz }
    case '30d': return { preset, from: addDays(today, -29), to: addDays(today, 1), tz }
    case 'month': return { preset, from: `${today.slice(0, 8)}01`, to: addDays(today, 1), tz }
    case 'custom':
      if (isDay(custom?.from) && isDay(custom?.last) && custom.from <= custom.last) return { preset, from: custom.from, to: addDays(custom.last, 1), tz }
      return { ...periodOf('7d', tz, now), preset }
    default: return { preset: '7d', from: addDays(today, -6), to: addDays(today, 1), tz }
  }
}

/** The last day of a period (inclusive), for a date input. */
export const lastDay = (p: Period) => addDays(p.to, -1)

/** from, to and tz as /admin/api/reports reads them. */
export const periodQuery = (p: Period): Record<string, string> => ({ from: p.from, to: p.to, tz: p.tz })

/** A period of one local day is shown per hour; longer ones per day. */
export const isOneDay = (p: Period) => addDays(p.from, 1) === p.to

/**
 * Today so far against yesterday up to the same local time (the KPI strip's comparison): two ranges of local
 * date-times the report API reads in `tz` (a DST day still compares wall clock with wall clock).
 */
export function todayVsYesterday(tz: string, now = Date.now()): { today: Record<string, string>; yesterday: Record<string, string> } {
  const p = localParts(now, tz)
  const today = `${p.y}-${pad(p.mo)}-${pad(p.d)}`
  const yesterday = addDays(today, -1)
  const clock = `${pad(p.h)}:${pad(p.mi)}`
  // +1 minute: the minute now is part of "so far".
  const upTo = (day: string) => (clock === '23:59' ? addDays(day, 1) : `${day}T${p.mi === 59 ? `${pad(p.h + 1)}:00` : `${pad(p.h)}:${pad(p.mi + 1)}`}`)
  return {
    today: { from: today, to: upTo(today), tz },
    yesterday: { from: yesterday, to: upTo(yesterday), tz },
  }
}

/** The period in a screen's URL state: `period=7d` or `period=custom&from=…&last=…` (`tz` is the instance's). */
export function periodFromParams(params: URLSearchParams, tz: string, fallback: Preset = 'today', now = Date.now()): Period {
  const raw = params.get('period')
  const preset = isPreset(raw) ? raw : fallback
  return periodOf(preset, tz, now, { from: params.get('from'), last: params.get('last') })
}

export function periodToParams(p: Period, params: URLSearchParams): void {
  params.set('period', p.preset)
  if (p.preset === 'custom') { params.set('from', p.from); params.set('last', lastDay(p)) } else { params.delete('from'); params.delete('last') }
}
