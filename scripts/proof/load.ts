// The load client of soak and crash: `concurrency` loops, each one request at a time on keep-alive
// connections. A loop opens /c/<slug> (redirect: manual), takes the click_id from the 302's Location,
// and after every `postbackEvery`-th click sends a postback for the click it just received.
// Every answer is counted: 302 / other status / socket error for clicks, 200 OK / other / error for postbacks.

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36'

export interface LoadOptions {
  base: string
  slug: string
  concurrency: number
  /** A postback after every n-th click of a loop; 0 = no postbacks. */
  postbackEvery: number
  /** Prefix of the transaction ids (tid) of postbacks, unique per run. */
  tidPrefix: string
  /** Keep every received click_id and every acknowledged postback (crash check); off for long soaks. */
  keepIds: boolean
}

/** Latency histogram in 0.1 ms buckets up to 5 s (last bucket = overflow). */
export class Histogram {
  readonly buckets = new Uint32Array(50_001)
  count = 0
  add(ms: number): void {
    this.buckets[Math.min(50_000, Math.max(0, Math.round(ms * 10)))]!++
    this.count++
  }
  /** Percentile in ms of the counts in `buckets` (optionally minus an earlier snapshot). */
  static percentile(buckets: Uint32Array, p: number, minus?: Uint32Array): number {
    let total = 0
    for (let i = 0; i < buckets.length; i++) total += buckets[i]! - (minus ? minus[i]! : 0)
    if (total === 0) return NaN
    const want = Math.ceil(total * p)
    let seen = 0
    for (let i = 0; i < buckets.length; i++) {
      seen += buckets[i]! - (minus ? minus[i]! : 0)
      if (seen >= want) return i / 10
    }
    return NaN
  }
}

export interface LoadStats {
  clicks302: number
  /** 302s whose Location carried no click_id (a defect, counted as an error). */
  clicksNoId: number
  clicksOther: Record<string, number>
  clickSocketErrors: number
  /** Requests sent and not yet answered (clicks and postbacks), at this moment. */
  inflight: number
  /** After mark(): how the clicks that were in flight at the mark ended. */
  markedInflight: { clicks302: number; other: Record<string, number>; socketErrors: number }
  postbacksSent: number
  postbacksOk: number
  postbacksOther: Record<string, number>
  postbackSocketErrors: number
  /** First few error messages, for the report. */
  errorSamples: string[]
  clickLatency: Histogram
  /** With keepIds: every click_id received in a 302, in order of arrival. */
  ids: string[]
  /** With keepIds: postbacks answered 200 OK. */
  acked: Array<{ tid: string; clickId: string }>
  /** With keepIds: postbacks whose answer was lost (socket error): recorded or not, both are fine. */
  unacked: Array<{ tid: string; clickId: string }>
}

export interface Load {
  readonly stats: LoadStats
  /** Marks this moment (e.g. a signal): outcomes of the clicks in flight now are counted in markedInflight. */
  mark(): void
  /** Ends the loops after their current request and resolves when all answers are in. */
  stop(): Promise<LoadStats>
}

function bump(m: Record<string, number>, k: string | number) {
  m[k] = (m[k] ?? 0) + 1
}

export function errorCount(s: LoadStats): number {
  const sum = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0)
  return s.clicksNoId + sum(s.clicksOther) + s.clickSocketErrors + sum(s.postbacksOther) + s.postbackSocketErrors
}

export function startLoad(o: LoadOptions): Load {
  const stats: LoadStats = {
    clicks302: 0, clicksNoId: 0, clicksOther: {}, clickSocketErrors: 0, inflight: 0,
    markedInflight: { clicks302: 0, other: {}, socketErrors: 0 },
    postbacksSent: 0, postbacksOk: 0, postbacksOther: {}, postbackSocketErrors: 0,
    errorSamples: [], clickLatency: new Histogram(), ids: [], acked: [], unacked: [],
  }
  let running = true
  let epoch = 0
  let pbSeq = 0
  const sample = (what: string) => {
    if (stats.errorSamples.length < 8) stats.errorSamples.push(what)
  }

  const postback = async (clickId: string) => {
    const n = pbSeq++
    const tid = `${o.tidPrefix}-${n}`
    // 198.18.0.0/15 (benchmarking range): 65536 addresses, each far below 600 postbacks a minute.
    const ip = `198.18.${(n >> 8) & 255}.${n & 255}`
    stats.postbacksSent++
    stats.inflight++
    try {
      const r = await fetch(`${o.base}/postback?subid=${clickId}&payout=1.5&status=approved&tid=${tid}`, {
        headers: { 'x-forwarded-for': ip },
      })
      const body = await r.text()
      if (r.status === 200 && body === 'OK') {
        stats.postbacksOk++
        if (o.keepIds) stats.acked.push({ tid, clickId })
      } else {
        bump(stats.postbacksOther, r.status)
        sample(`postback ${r.status} ${body.slice(0, 80)}`)
      }
    } catch (err) {
      stats.postbackSocketErrors++
      if (o.keepIds) stats.unacked.push({ tid, clickId })
      sample(`postback: ${(err as Error).message ?? err}`)
    } finally {
      stats.inflight--
    }
  }

  const loop = async (k: number) => {
    let n = 0
    while (running) {
      n++
      const url = `${o.base}/c/${o.slug}?sub1=loop-${k}&sub2=${n}&utm_source=proof&utm_campaign=load`
      const t0 = performance.now()
      let clickId: string | null = null
      stats.inflight++
      const startedBeforeMark = epoch === 0
      const marked = () => startedBeforeMark && epoch === 1
      try {
        const r = await fetch(url, {
          redirect: 'manual',
          headers: { 'user-agent': UA, 'x-forwarded-for': `203.0.113.${(k % 250) + 1}` },
        })
        await r.arrayBuffer()
        stats.clickLatency.add(performance.now() - t0)
        if (r.status === 302) {
          const m = UUID.exec(r.headers.get('location') ?? '')
          if (m) {
            clickId = m[0]
            stats.clicks302++
            if (marked()) stats.markedInflight.clicks302++
            if (o.keepIds) stats.ids.push(clickId)
          } else {
            stats.clicksNoId++
            sample(`302 without click_id: ${r.headers.get('location')}`)
          }
        } else {
          bump(stats.clicksOther, r.status)
          if (marked()) bump(stats.markedInflight.other, r.status)
          sample(`click ${r.status}`)
        }
      } catch (err) {
        stats.clickSocketErrors++
        if (marked()) stats.markedInflight.socketErrors++
        sample(`click: ${(err as Error).message ?? err}`)
        stats.inflight--
        await Bun.sleep(5) // a dead server refuses at once; do not spin
        continue
      }
      stats.inflight--
      if (clickId && o.postbackEvery > 0 && n % o.postbackEvery === 0 && running) await postback(clickId)
    }
  }

  const loops = Array.from({ length: o.concurrency }, (_, k) => loop(k))
  return {
    stats,
    mark() {
      epoch = 1
    },
    async stop() {
      running = false
      await Promise.all(loops)
      return stats
    },
  }
}
