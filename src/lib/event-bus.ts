// Delivers domain events (src/events.ts) to subscribers, each declared for one phase:
//   in-transaction: runs inside the emitter's database transaction, at emit(); throwing rolls the change
//                   back, so it may only fail for real database errors (enqueueing a job).
//   before-commit:  runs once per transaction, just before it commits, with the payloads of every unit
//                   the transaction keeps (a unit rolled back to its savepoint is not among them). For
//                   writes many changes of one group commit share, such as a rollup row: written once, and
//                   last, so a hot row is locked only for the commit itself. Throwing rolls the whole
//                   transaction back.
//   after-commit:   runs once the change is durable; its errors are logged, never thrown back at the
//                   emitter (cache invalidation, waking the job loop).
// An emitter opens a Unit around its transaction: unit.emit() runs the in-transaction subscribers at once
// and remembers the event; bus.beforeCommit(units, tx) runs the before-commit subscribers of the units its
// transaction keeps; unit.commit() runs the after-commit subscribers. A unit whose transaction threw is
// dropped, so after-commit subscribers never hear of a change that was rolled back.
//
// Engines: on SQLite every store shares one connection, so a subscriber simply runs its statements
// (synchronously) and they join the emitter's transaction; the unit's `tx` is null. On Postgres a
// transaction is a handle of its own: the emitter opens the unit with it (`unit(tx)`), the subscriber
// writes through `tx`, may be async, and the emitter awaits what emit() and beforeCommit() return.
import type { DomainEvents, EventName } from '../events'
import type { Tx } from '../db/engine'
import { errorFields, log } from './log'

export type Phase = 'in-transaction' | 'before-commit' | 'after-commit'
type Handler<E extends EventName> = (payload: DomainEvents[E], tx: Tx) => void | Promise<void>
/** A before-commit subscriber: every payload of the event that its transaction keeps, in emit order. */
type BatchHandler<E extends EventName> = (payloads: Array<DomainEvents[E]>, tx: Tx) => void | Promise<void>

interface Subscriber {
  name: string
  fn: (payload: never, tx: Tx) => void | Promise<void>
}

/** The subscribers of one event, by phase (looked up once per emit, on the postback hot path). */
interface Subscribers {
  inTransaction: Subscriber[]
  beforeCommit: Subscriber[]
  afterCommit: Subscriber[]
}

export interface Unit {
  /** The transaction the in-transaction subscribers write through (Postgres); null on SQLite. */
  readonly tx: Tx
  /**
   * Runs the in-transaction subscribers. Returns a Promise only when one of them is async (Postgres):
   * the emitter must await it before it commits.
   */
  emit<E extends EventName>(event: E, payload: DomainEvents[E]): void | Promise<void>
  /** Runs the after-commit subscribers of every event emitted in this unit. */
  commit(): void
}

const NONE: Subscribers = Object.freeze({ inTransaction: [], beforeCommit: [], afterCommit: [] }) as never

const listOf = (s: Subscribers, phase: Phase): Subscriber[] =>
  phase === 'in-transaction' ? s.inTransaction : phase === 'before-commit' ? s.beforeCommit : s.afterCommit

export class EventBus {
  private readonly subs = new Map<EventName, Subscribers>()
  /** Events that have before-commit subscribers: a transaction that emitted none of them skips the phase. */
  private readonly batched = new Set<EventName>()

  /** `name` says who subscribes (logs and docs/architecture.md use it). */
  on<E extends EventName>(event: E, phase: 'before-commit', name: string, fn: BatchHandler<E>): void
  on<E extends EventName>(event: E, phase: 'in-transaction' | 'after-commit', name: string, fn: Handler<E>): void
  on<E extends EventName>(event: E, phase: Phase, name: string, fn: Handler<E> | BatchHandler<E>): void {
    let s = this.subs.get(event)
    if (!s) this.subs.set(event, (s = { inTransaction: [], beforeCommit: [], afterCommit: [] }))
    listOf(s, phase).push({ name, fn: fn as never })
    if (phase === 'before-commit') this.batched.add(event)
  }

  /** Who listens to what, for tests and the architecture doc. */
  subscribers(event: EventName, phase: Phase): string[] {
    return listOf(this.of(event), phase).map((x) => x.name)
  }

  /**
   * The before-commit phase of one transaction: each subscriber once, with the payloads of its event from
   * every unit given (the units the transaction keeps, in order). Call it last, just before COMMIT.
   * Returns a Promise only when a subscriber is async (Postgres): await it before committing; a throw
   * means the transaction must roll back.
   */
  beforeCommit(units: readonly Unit[], tx: Tx): void | Promise<void> {
    const calls: Array<[Subscriber, unknown[]]> = []
    for (const event of this.batched) {
      let payloads: unknown[] | undefined
      for (const u of units) {
        const unit = u as EventUnit
        unit.prepared = true
        for (const [e, payload] of unit.emitted()) if (e === event) (payloads ??= []).push(payload)
      }
      if (payloads) for (const sub of this.of(event).beforeCommit) calls.push([sub, payloads])
    }
    for (let i = 0; i < calls.length; i++) {
      const r = calls[i]![0].fn(calls[i]![1] as never, tx)
      if (r instanceof Promise) return chainBatches(r, calls.slice(i + 1), tx)
    }
  }

  /** `tx`: the emitter's Postgres transaction; leave it out on SQLite. */
  unit(tx: Tx = null): Unit {
    return new EventUnit(this, tx)
  }

  /** For changes with no transaction of their own to join (or already committed): after-commit subscribers only. */
  committed<E extends EventName>(event: E, payload: DomainEvents[E]): void {
    this.deliver(this.of(event).afterCommit, event, payload)
  }

  /** @internal the unit's side of emit(): in-transaction subscribers, errors thrown to the emitter. */
  inTransaction(event: EventName, payload: unknown, tx: Tx): void | Promise<void> {
    const list = this.of(event).inTransaction
    for (let i = 0; i < list.length; i++) {
      const r = list[i]!.fn(payload as never, tx)
      // From the first async subscriber on, the rest run after it: a transaction runs one statement at a time.
      if (r instanceof Promise) return chain(r, list.slice(i + 1), payload, tx)
    }
  }

  /** @internal after-commit subscribers: a failing one is logged and the others still run. */
  deliver(list: readonly Subscriber[], event: EventName, payload: unknown): void {
    for (let i = 0; i < list.length; i++) {
      try {
        list[i]!.fn(payload as never, null)
      } catch (err) {
        log.error(`events: ${list[i]!.name} failed on ${event}`, errorFields(err))
      }
    }
  }

  /** @internal */
  of(event: EventName): Subscribers {
    return this.subs.get(event) ?? NONE
  }
}

/** One emitter's transaction: what it emitted, delivered after commit. */
class EventUnit implements Unit {
  private done: Array<[EventName, unknown]> | null = null
  /** Set by bus.beforeCommit(): commit() checks that an emitter did not skip the phase. */
  prepared = false

  constructor(private readonly bus: EventBus, readonly tx: Tx) {}

  emitted(): ReadonlyArray<[EventName, unknown]> {
    return this.done ?? []
  }

  emit<E extends EventName>(event: E, payload: DomainEvents[E]): void | Promise<void> {
    ;(this.done ??= []).push([event, payload])
    return this.bus.inTransaction(event, payload, this.tx)
  }

  commit(): void {
    const done = this.done
    this.done = null
    if (!done) return
    for (const [event, payload] of done) {
      // A programming error, reported loudly: the emitter committed without running bus.beforeCommit().
      if (!this.prepared && this.bus.of(event).beforeCommit.length > 0) log.error(`events: ${event} was committed without its before-commit phase`)
      this.bus.deliver(this.bus.of(event).afterCommit, event, payload)
    }
  }
}

/** The in-transaction subscribers after an async one, each awaited in turn. */
async function chain(first: Promise<void>, rest: readonly Subscriber[], payload: unknown, tx: Tx): Promise<void> {
  await first
  for (const s of rest) await s.fn(payload as never, tx)
}

/** The before-commit calls after an async one, each awaited in turn (one statement at a time on a transaction). */
async function chainBatches(first: Promise<void>, rest: ReadonlyArray<[Subscriber, unknown[]]>, tx: Tx): Promise<void> {
  await first
  for (const [sub, payloads] of rest) await sub.fn(payloads as never, tx)
}
