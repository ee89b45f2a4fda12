// Delivers domain events (src/events.ts) to subscribers, each declared for one phase:
//   in-transaction: runs inside the emitter's database transaction; throwing rolls the change back, so it
//                   may only fail for real database errors (rollups, enqueueing a job).
//   after-commit:   runs once the change is durable; its errors are logged, never thrown back at the
//                   emitter (cache invalidation, waking the job loop).
// An emitter opens a Unit around its transaction: unit.emit() runs the in-transaction subscribers at once
// and remembers the event; unit.commit() runs the after-commit subscribers. A unit whose transaction
// threw is dropped, so after-commit subscribers never hear of a change that was rolled back.
//
// Engines: on SQLite every store shares one connection, so an in-transaction subscriber simply runs its
// statements (synchronously) and they join the emitter's transaction; the unit's `tx` is null. On
// Postgres a transaction is a handle of its own: the emitter opens the unit with it (`unit(tx)`), the
// subscriber writes through `tx`, may be async, and the emitter awaits what `emit()` returns.
import type { DomainEvents, EventName } from '../events'
import type { Tx } from '../db/engine'
import { errorFields, log } from './log'

export type Phase = 'in-transaction' | 'after-commit'
type Handler<E extends EventName> = (payload: DomainEvents[E], tx: Tx) => void | Promise<void>

interface Subscriber {
  name: string
  fn: (payload: never, tx: Tx) => void | Promise<void>
}

/** The subscribers of one event, by phase (looked up once per emit, on the postback hot path). */
interface Subscribers {
  inTransaction: Subscriber[]
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

const NONE: Subscribers = Object.freeze({ inTransaction: [], afterCommit: [] }) as never

export class EventBus {
  private readonly subs = new Map<EventName, Subscribers>()

  /** `name` says who subscribes (logs and docs/architecture.md use it). */
  on<E extends EventName>(event: E, phase: Phase, name: string, fn: Handler<E>): void {
    let s = this.subs.get(event)
    if (!s) this.subs.set(event, (s = { inTransaction: [], afterCommit: [] }))
    ;(phase === 'in-transaction' ? s.inTransaction : s.afterCommit).push({ name, fn: fn as never })
  }

  /** Who listens to what, for tests and the architecture doc. */
  subscribers(event: EventName, phase: Phase): string[] {
    const s = this.of(event)
    return (phase === 'in-transaction' ? s.inTransaction : s.afterCommit).map((x) => x.name)
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

  constructor(private readonly bus: EventBus, readonly tx: Tx) {}

  emit<E extends EventName>(event: E, payload: DomainEvents[E]): void | Promise<void> {
    ;(this.done ??= []).push([event, payload])
    return this.bus.inTransaction(event, payload, this.tx)
  }

  commit(): void {
    const done = this.done
    this.done = null
    if (done) for (const [event, payload] of done) this.bus.deliver(this.bus.of(event).afterCommit, event, payload)
  }
}

/** The in-transaction subscribers after an async one, each awaited in turn. */
async function chain(first: Promise<void>, rest: readonly Subscriber[], payload: unknown, tx: Tx): Promise<void> {
  await first
  for (const s of rest) await s.fn(payload as never, tx)
}
