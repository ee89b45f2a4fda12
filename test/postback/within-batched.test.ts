// ConversionRecorder.withinBatched on SQLite (incoming webhooks): the bodies of one event-loop turn share
// one transaction, each in its own savepoint. Submitted synchronously here, so they are one batch for sure.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { openDatabase, type Database } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { EventBus } from '../../src/lib/event-bus'
import { ConversionTypes } from '../../src/postback/conversion-types'
import { ConversionTypesStore } from '../../src/postback/conversion-types-store'
import { ConversionRecorder, type RecordedConversion, type RecordResult, type WithinBody } from '../../src/postback/record'
import { SqlitePostbackStore, type ClickForConversion } from '../../src/postback/store'

let dir: string
let db: Database
let store: SqlitePostbackStore
let types: ConversionTypes
const events = new EventBus()
const beforeCommitCalls: number[] = []
const afterCommit: number[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-within-'))
  db = await openDatabase(join(dir, 'svc.db'))
  migrate(db)
  const byClickId = db.raw.prepare('SELECT id FROM clicks WHERE click_id = $id')
  store = new SqlitePostbackStore(db.raw, (id) => (byClickId.get({ id }) as { id: number } | undefined)?.id)
  types = new ConversionTypes(new ConversionTypesStore(db), events)
  events.on('conversion.recorded', 'before-commit', 'test.batch', (list: readonly RecordedConversion[]) => {
    beforeCommitCalls.push(list.length)
  })
  events.on('conversion.recorded', 'after-commit', 'test.after', (c: RecordedConversion) => {
    afterCommit.push(c.id)
  })
})
afterAll(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

function addClick(): ClickForConversion {
  const now = Date.now()
  const raw = db.raw
  const src = raw.prepare("INSERT INTO sources (name, created_at, updated_at) VALUES ($n, $now, $now) RETURNING id").get({ n: randomUUID(), now }) as { id: number }
  const offer = raw.prepare("INSERT INTO offers (name, slug, url, payout, currency, created_at, updated_at) VALUES ($n, $n, 'https://adv.example/', 2, 'USD', $now, $now) RETURNING id").get({ n: randomUUID(), now }) as { id: number }
  const camp = raw.prepare('INSERT INTO campaigns (name, slug, source_id, active, created_at, updated_at) VALUES ($n, $n, $s, 1, $now, $now) RETURNING id').get({ n: randomUUID(), s: src.id, now }) as { id: number }
  raw.prepare('INSERT INTO clicks (click_id, campaign_id, source_id, offer_id, created_at) VALUES ($c, $camp, $s, $o, $now)').run({ c: randomUUID(), camp: camp.id, s: src.id, o: offer.id, now })
  const row = raw.prepare('SELECT max(id) AS id FROM clicks').get() as { id: number }
  const click = raw.prepare('SELECT click_id FROM clicks WHERE id = $id').get({ id: row.id }) as { click_id: string }
  return store.findClick(click.click_id)!
}

/** A body that records one sale for `click`, then fails when asked to (after its write). */
function sale(click: ClickForConversion, fail = false): WithinBody<number> {
  return function* (record) {
    const r: RecordResult = yield* record({
      click, type: types.resolve('sale'), status: null, revenue: 5, currency: 'USD', transactionId: null, email: null, date: Date.now(),
      dedupByTransactionId: false,
    })
    if (fail) throw new Error('refused after the write')
    return r.recorded ? r.conversion.id : -1
  }
}

const conversionsOf = (click: ClickForConversion) =>
  (db.raw.prepare('SELECT count(*) AS n FROM conversions WHERE click_row_id = $row').get({ row: click.id }) as { n: number }).n

test('one transaction for the turn: a body that throws rolls back alone and rejects alone', async () => {
  const recorder = new ConversionRecorder(store, events, true)
  const [a, b, c] = [addClick(), addClick(), addClick()]
  beforeCommitCalls.length = 0
  afterCommit.length = 0
  const answers = await Promise.allSettled([recorder.withinBatched(sale(a)), recorder.withinBatched(sale(b, true)), recorder.withinBatched(sale(c))])
  expect(answers.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
  expect((answers[1] as PromiseRejectedResult).reason.message).toBe('refused after the write')
  expect([conversionsOf(a), conversionsOf(b), conversionsOf(c)]).toEqual([1, 0, 1])
  // The before-commit phase ran once, for the two kept conversions: one transaction, not three.
  expect(beforeCommitCalls).toEqual([2])
  // After the commit, the kept ones are heard, in order, and the answers carry their ids.
  const ids = answers.filter((x) => x.status === 'fulfilled').map((x) => (x as PromiseFulfilledResult<number>).value)
  expect(afterCommit).toEqual(ids)
})

test('without group commit (Postgres wiring) each body is a transaction of its own', async () => {
  const recorder = new ConversionRecorder(store, events, false)
  const [a, b] = [addClick(), addClick()]
  beforeCommitCalls.length = 0
  await Promise.all([recorder.withinBatched(sale(a)), recorder.withinBatched(sale(b))])
  expect(beforeCommitCalls).toEqual([1, 1])
  expect([conversionsOf(a), conversionsOf(b)]).toEqual([1, 1])
})

test('a batch whose COMMIT fails rejects every body and stores none', async () => {
  const recorder = new ConversionRecorder(store, events, true)
  const [a, b] = [addClick(), addClick()]
  // A before-commit subscriber that throws rolls the whole transaction back (as a failed COMMIT would).
  events.on('conversion.recorded', 'before-commit', 'test.fail-once', failOnce)
  const answers = await Promise.allSettled([recorder.withinBatched(sale(a)), recorder.withinBatched(sale(b))])
  expect(answers.map((x) => x.status)).toEqual(['rejected', 'rejected'])
  expect([conversionsOf(a), conversionsOf(b)]).toEqual([0, 0])
})

let failed = false
function failOnce(): void {
  if (failed) return
  failed = true
  throw new Error('before-commit refused')
}
