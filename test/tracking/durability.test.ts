import { afterAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { testDb } from '../helpers/db'
import { onPostgres } from '../helpers/pg'
import { get, startServer, type TestServer } from '../helpers/server'
import { newClick } from '../../src/tracking/store/click'
import { WriterUnavailable } from '../../src/tracking/store/click-store'
import { clickCount, clickRow, cookieClickId, seeder, SERVER_TIMEOUT_MS } from './seed'

/** A trigger that makes every INSERT (or UPDATE) of clicks fail (a disk on fire), or drops it again. */
async function refuseClicks(s: TestServer, refuse: boolean, op: 'INSERT' | 'UPDATE' = 'INSERT'): Promise<void> {
  const db = testDb(s)
  if (!onPostgres) {
    await db.run(refuse
      ? `CREATE TRIGGER clicks_refuse BEFORE ${op} ON clicks BEGIN SELECT RAISE(ABORT, 'disk on fire'); END`
      : 'DROP TRIGGER clicks_refuse')
  } else if (refuse) {
    await db.run("CREATE FUNCTION clicks_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk on fire'; END $$")
    await db.run(`CREATE TRIGGER clicks_refuse BEFORE ${op} ON clicks FOR EACH ROW EXECUTE FUNCTION clicks_refuse()`)
  } else {
    await db.run('DROP TRIGGER clicks_refuse ON clicks')
    await db.run('DROP FUNCTION clicks_refuse()')
  }
}

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

describe('group commit durability', () => {
  test('a graceful stop during a burst loses no click that was handed out in a 302', async () => {
    const s = await startServer()
    dirs.push(s.dataDir)
    const seed = seeder(s)
    await seed.campaign({ slug: 'burst', offers: [[await seed.offer('https://offer.example/?c={click_id}'), 1]] })

    const firstAnswer = Promise.withResolvers<void>()
    let answered = 0
    const inflight = Array.from({ length: 300 }, () =>
      get(`${s.base}/c/burst?sub1=x`).then(
        (res) => {
          answered++
          firstAnswer.resolve()
          return { status: res.status, location: res.headers.get('location') }
        },
        () => ({ status: 0, location: null }), // refused or reset by the stopping server: fine, no 302 was given
      ),
    )
    await firstAnswer.promise // the burst is being served: stop in the middle of it
    const answeredBeforeStop = answered
    await s.stop()
    const results = await Promise.all(inflight)

    const handedOut = results.filter((r) => r.status === 302).map((r) => /[?&]c=([0-9a-f-]{36})/.exec(r.location!)![1]!)
    expect(handedOut.length).toBeGreaterThan(answeredBeforeStop) // some 302s were still on their way when stop began
    for (const r of results) expect([0, 302, 503]).toContain(r.status)

    const again = await startServer({}, s.dataDir)
    try {
      const missing: string[] = []
      for (const id of handedOut) if (!(await clickRow(again, id))) missing.push(id)
      expect(missing).toEqual([])
      expect(await clickCount(again)).toBeGreaterThanOrEqual(handedOut.length)
    } finally {
      await again.stop()
    }
  }, SERVER_TIMEOUT_MS)

  test('when the batch cannot be committed the visitor gets 503 JSON, never a 302, and nothing is stored', async () => {
    const s: TestServer = await startServer()
    dirs.push(s.dataDir)
    try {
      const seed = seeder(s)
      await seed.campaign({ slug: 'fail', offers: [[await seed.offer('https://offer.example/'), 1]] })
      await refuseClicks(s, true)
      const before = await clickCount(s)
      const results = await Promise.all(Array.from({ length: 5 }, () => get(`${s.base}/c/fail`)))
      for (const res of results) {
        expect(res.status).toBe(503)
        expect(await res.json()).toEqual({ error: 'temporarily unavailable' })
        expect(res.headers.get('set-cookie')).toBeNull()
      }
      expect(await clickCount(s)).toBe(before)

      await refuseClicks(s, false)
      const ok = await get(`${s.base}/c/fail`)
      expect(ok.status).toBe(302)
      expect(await clickRow(s, cookieClickId(ok)!)).toBeDefined()
    } finally {
      await s.stop()
    }
  }, SERVER_TIMEOUT_MS)

  test('a continued click whose change cannot be committed (the /r click-through) gets 503 JSON, and the change is not kept', async () => {
    const s: TestServer = await startServer()
    dirs.push(s.dataDir)
    try {
      const seed = seeder(s)
      const offer = await seed.offer('https://offer.example/?c={click_id}')
      const landing = await seed.landing({ url: 'https://lp.example/?c={click_id}' })
      await seed.campaign({ slug: 'amend-fail', offers: [[offer, 1]], landings: [[landing, 1]] })
      const first = await get(`${s.base}/c/amend-fail`)
      expect(first.status).toBe(302)
      const id = cookieClickId(first)!
      await refuseClicks(s, true, 'UPDATE')
      const refused = await get(`${s.base}/r/amend-fail?click_id=${id}`)
      expect(refused.status).toBe(503)
      expect(refused.headers.get('location')).toBeNull()
      expect(await refused.json()).toEqual({ error: 'temporarily unavailable' })
      expect((await clickRow(s, id))!.landing_clicked_at).toBeNull()

      await refuseClicks(s, false)
      const ok = await get(`${s.base}/r/amend-fail?click_id=${id}`)
      expect(ok.status).toBe(302)
      expect(ok.headers.get('location')).toBe(`https://offer.example/?c=${id}`)
      expect((await clickRow(s, id))!.landing_clicked_at).toBeGreaterThan(0)
    } finally {
      await s.stop()
    }
  }, SERVER_TIMEOUT_MS)

  test('stop() commits a batch still waiting for the end of the event-loop turn, then refuses new clicks', async () => {
    const s = await startServer()
    dirs.push(s.dataDir)
    try {
      const store = s.server.clicks
      const id = crypto.randomUUID()
      const click = newClick({ clickId: id, campaignId: 1, offerId: 1, ip: '192.0.2.1', isUnique: true, createdAt: Date.now() })
      const committed = store.append(click)
      await store.stop() // same turn: the setImmediate flush has not run yet
      await committed
      expect(await clickRow(s, id)).toBeDefined()
      await expect(store.append({ ...click, clickId: crypto.randomUUID() })).rejects.toThrow(WriterUnavailable)
    } finally {
      await s.stop()
    }
  }, SERVER_TIMEOUT_MS)
})
