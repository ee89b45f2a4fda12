// The `time` condition: windows (wrapping midnight), weekdays, zones, DST changes, and the zone clock that
// answers them without an Intl call per click.
import { afterEach, describe, expect, test } from 'bun:test'
import { compileConditions, explain, type Condition } from '../../src/rules'
import { ZoneClock } from '../../src/rules/clock'
import { ctx, holds } from './ctx'

const at = (iso: string) => ctx({ now: Date.parse(iso) })
const window = (tz: string, from: string, to: string, days?: string[]) => [{ type: 'time', tz, from, to, ...(days ? { days } : {}) }]

describe('time windows and weekdays', () => {
  test('a window within a day: from inclusive, to exclusive', () => {
    const office = window('Europe/Berlin', '09:00', '17:00') // CEST in June: UTC+2
    expect(holds(office, at('2025-06-11T06:59:59Z'))).toBe(false)
    expect(holds(office, at('2025-06-11T07:00:00Z'))).toBe(true)
    expect(holds(office, at('2025-06-11T14:59:59Z'))).toBe(true)
    expect(holds(office, at('2025-06-11T15:00:00Z'))).toBe(false)
    expect(holds([{ ...office[0], negate: true }], at('2025-06-11T15:00:00Z'))).toBe(true)
  })

  test('a window that wraps midnight', () => {
    const night = window('UTC', '22:00', '06:00')
    expect(['21:59', '22:00', '23:30', '00:00', '05:59', '06:00', '12:00'].map((t) => holds(night, at(`2025-06-11T${t}:00Z`))))
      .toEqual([false, true, true, true, true, false, false])
    const lateEvening = window('UTC', '22:00', '00:00') // 00:00 as the end: until midnight
    expect(['21:59', '22:00', '23:59', '00:00'].map((t) => holds(lateEvening, at(`2025-06-11T${t}:00Z`)))).toEqual([false, true, true, false])
    const untilMidnight = window('UTC', '18:00', '24:00')
    expect(['17:59', '18:00', '23:59', '00:00'].map((t) => holds(untilMidnight, at(`2025-06-11T${t}:00Z`)))).toEqual([false, true, true, false])
  })

  test('weekdays alone, in the zone (not UTC)', () => {
    const weekend = [{ type: 'time', tz: 'America/New_York', days: ['sat', 'sun'] }]
    expect(holds(weekend, at('2025-06-14T03:59:00Z'))).toBe(false) // Fri 23:59 EDT
    expect(holds(weekend, at('2025-06-14T04:00:00Z'))).toBe(true) // Sat 00:00 EDT
    expect(holds(weekend, at('2025-06-16T02:00:00Z'))).toBe(true) // Mon UTC, still Sun 22:00 EDT
    expect(holds(weekend, at('2025-06-16T04:00:00Z'))).toBe(false) // Mon 00:00 EDT
  })

  test('a window that wraps midnight belongs to the day it starts: Friday 22:00–02:00 includes Saturday 01:00', () => {
    const fridayNight = window('Europe/Berlin', '22:00', '02:00', ['fri'])
    expect(holds(fridayNight, at('2025-06-13T19:59:00Z'))).toBe(false) // Fri 21:59
    expect(holds(fridayNight, at('2025-06-13T21:00:00Z'))).toBe(true) // Fri 23:00
    expect(holds(fridayNight, at('2025-06-13T23:00:00Z'))).toBe(true) // Sat 01:00, the window began on Friday
    expect(holds(fridayNight, at('2025-06-14T00:00:00Z'))).toBe(false) // Sat 02:00
    expect(holds(fridayNight, at('2025-06-12T23:00:00Z'))).toBe(false) // Fri 01:00: that window began on Thursday
    expect(holds(fridayNight, at('2025-06-14T21:00:00Z'))).toBe(false) // Sat 23:00
    const [e] = explain(fridayNight as Condition[], at('2025-06-13T23:00:00Z'))
    expect(e!.detail).toBe('local time sat 01:00 Europe/Berlin: in 22:00–02:00; fri (the window began that day) is in fri')
  })
})

describe('DST changes', () => {
  test('Europe/Berlin: the same local window moves by an hour in UTC across the spring change', () => {
    const morning = window('Europe/Berlin', '08:00', '09:00')
    expect(holds(morning, at('2025-03-29T07:30:00Z'))).toBe(true) // 08:30 CET
    expect(holds(morning, at('2025-03-31T07:30:00Z'))).toBe(false) // 09:30 CEST
    expect(holds(morning, at('2025-03-31T06:30:00Z'))).toBe(true) // 08:30 CEST
    // The night of the change: 02:00–03:00 does not exist; 01:59:59 CET is followed by 03:00 CEST.
    const early = window('Europe/Berlin', '01:00', '03:30')
    expect(holds(early, at('2025-03-30T00:59:59Z'))).toBe(true) // 01:59:59 CET
    expect(holds(early, at('2025-03-30T01:15:00Z'))).toBe(true) // 03:15 CEST
    expect(holds(early, at('2025-03-30T01:30:00Z'))).toBe(false) // 03:30 CEST
    const gap = window('Europe/Berlin', '02:00', '03:00')
    expect(holds(gap, at('2025-03-30T00:59:59Z'))).toBe(false)
    expect(holds(gap, at('2025-03-30T01:00:00Z'))).toBe(false)
  })

  test('Europe/Berlin in autumn: 02:00–03:00 happens twice and matches both times', () => {
    const twice = window('Europe/Berlin', '02:00', '03:00')
    expect(holds(twice, at('2025-10-26T00:30:00Z'))).toBe(true) // 02:30 CEST
    expect(holds(twice, at('2025-10-26T01:30:00Z'))).toBe(true) // 02:30 CET
    expect(holds(twice, at('2025-10-26T02:00:00Z'))).toBe(false) // 03:00 CET
  })

  test('America/New_York, spring forward and fall back, and a night window across the change', () => {
    const early = window('America/New_York', '00:00', '02:00')
    expect(holds(early, at('2025-03-09T06:59:59Z'))).toBe(true) // 01:59:59 EST
    expect(holds(early, at('2025-03-09T07:00:00Z'))).toBe(false) // 03:00 EDT
    expect(holds(window('America/New_York', '03:00', '04:00'), at('2025-03-09T07:00:00Z'))).toBe(true)
    expect(holds(early, at('2025-11-02T05:30:00Z'))).toBe(true) // 01:30 EDT
    expect(holds(early, at('2025-11-02T06:30:00Z'))).toBe(true) // 01:30 EST, the second time
    expect(holds(early, at('2025-11-02T07:00:00Z'))).toBe(false) // 02:00 EST
    // 22:00–06:00 on the spring night: a fixed offset taken at 22:00 EST would still count 10:30 UTC (06:30 EDT) in.
    const night = window('America/New_York', '22:00', '06:00', ['sat'])
    expect(holds(night, at('2025-03-09T03:00:00Z'))).toBe(true) // Sat 22:00 EST
    expect(holds(night, at('2025-03-09T09:59:00Z'))).toBe(true) // Sun 05:59 EDT, the window began on Saturday
    expect(holds(night, at('2025-03-09T10:30:00Z'))).toBe(false) // Sun 06:30 EDT
  })

  test('a change inside an hour (Lord Howe moves by 30 minutes at 15:30 UTC) is found to the second, in any order', () => {
    const clock = ZoneClock.of('Australia/Lord_Howe')!
    const t = Date.parse('2025-10-04T15:30:00Z') // 02:00 +10:30 → 02:30 +11:00
    for (const ms of [t - 1000, t, t + 20 * 60_000, t - 20 * 60_000, t + 1000, t - 1000]) {
      expect([ms, clock.offsetAt(ms)]).toEqual([ms, ms < t ? 10.5 * 3_600_000 : 11 * 3_600_000])
    }
    expect(clock.minuteOfDay(t - 1000)).toBe(119) // 01:59
    expect(clock.minuteOfDay(t)).toBe(150) // 02:30
  })
})

describe('the zone clock', () => {
  const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/St_Johns', 'Pacific/Chatham', 'America/Santiago', 'UTC']
  const reference = new Map(ZONES.map((z) => [z, new Intl.DateTimeFormat('en-US', {
    timeZone: z, hourCycle: 'h23', weekday: 'short', hour: 'numeric', minute: 'numeric',
  })]))
  const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
  function expected(zone: string, ms: number): [number, number] {
    const p = Object.fromEntries(reference.get(zone)!.formatToParts(ms).map((x) => [x.type, x.value]))
    return [Number(p.hour) * 60 + Number(p.minute), DAY_NAMES.indexOf(p.weekday!)]
  }

  test('agrees with Intl on every zone, walking through 2025 (every DST change) and jumping at random', () => {
    const start = Date.UTC(2025, 0, 1)
    const end = Date.UTC(2026, 0, 1)
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    for (const zone of ZONES) {
      const clock = ZoneClock.of(zone)!
      const wrong: string[] = []
      const check = (ms: number) => {
        const got: [number, number] = [clock.minuteOfDay(ms), clock.weekday(ms)]
        const want = expected(zone, ms)
        if (got[0] !== want[0] || got[1] !== want[1]) wrong.push(`${new Date(ms).toISOString()} ${got} ≠ ${want}`)
      }
      for (let ms = start; ms < end; ms += 97 * 60_000 + 13_000) check(ms)
      for (let k = 0; k < 1000; k++) check(start + Math.floor(random() * (end - start)))
      expect([zone, wrong.slice(0, 3)]).toEqual([zone, []])
    }
  })

  const original = Intl.DateTimeFormat.prototype.formatToParts
  afterEach(() => {
    Intl.DateTimeFormat.prototype.formatToParts = original
  })

  test('a click costs no Intl call: the offset is asked at most twice an hour per zone', () => {
    const p = compileConditions([{ type: 'time', tz: 'Asia/Tokyo', from: '09:00', to: '18:00' }])
    let calls = 0
    Intl.DateTimeFormat.prototype.formatToParts = function (this: Intl.DateTimeFormat, d?: Date | number) {
      calls++
      return original.call(this, d)
    }
    const base = Date.parse('2025-06-11T01:00:00Z')
    let hits = 0
    for (let i = 0; i < 10_000; i++) if (p(ctx({ now: base + i * 360 }))) hits++
    expect(hits).toBe(10_000) // 10:00–11:00 in Tokyo
    expect(calls).toBeLessThanOrEqual(2)
  })

  test('a zone this build does not know (stored earlier) never holds, and says so', () => {
    const stored = [{ type: 'time', tz: 'Mars/Olympus_Mons', days: ['mon'] }] as Condition[]
    expect(compileConditions(stored)(ctx())).toBe(false)
    expect(compileConditions([{ ...stored[0]!, negate: true }] as Condition[])(ctx())).toBe(true)
    expect(explain(stored, ctx())[0]!.detail).toBe('time zone "Mars/Olympus_Mons" is unknown here: never holds')
  })
})
