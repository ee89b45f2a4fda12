// Delivers domain events (src/events.ts) to subscribers, each declared for one phase:
//   in-transaction: runs inside the emitter's database transaction; throwing rolls the change back, so it
//                   may only fail for real database errors (rollups, enqueueing a job).
//   after-commit:   runs once the change is durable; its errors are logged, never thrown back at the
//                   emitter (cache invalidation, waking the job loop).
// An emitter opens a Unit around its transaction: unit.emit() runs the in-transaction subscribers at once
// and remembers the event; unit.commit() runs the after-commit subscribers. A unit whose transaction
// threw is dropped, so after-commit subscribers never hear of a change that was rolled back.
import type { DomainEvents, EventName } from '../events'
import { errorFields, log } from './log'

export type Phase = 'in-transaction' | 'after-commit'
type Handler<E extends EventName> = (payload: DomainEvents[E]) => void

interface Subscriber {
  name: string
  fn: (payload: never) => void
}

/** The subscribers of one event, by phase (looked up once per emit, on the postback hot path). */
interface Subscribers {
  inTransaction: Subscriber[]
  afterCommit: Subscriber[]
}

export interface Unit {
  emit<E extends EventName>(event: E, payload: DomainEvents[E]): void
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

  unit(): Unit {
    return new EventUnit(this)
  }

  /** For changes with no transaction of their own to join (or already committed): after-commit subscribers only. */
  committed<E extends EventName>(event: E, payload: DomainEvents[E]): void {
    this.deliver(this.of(event).afterCommit, event, payload)
  }

  /** @internal the unit's side of emit(): in-transaction subscribers, errors thrown to the emitter. */
  inTransaction(event: EventName, payload: unknown): void {
    const list = this.of(event).inTransaction
    for (let i = 0; i < list.length; i++) list[i]!.fn(payload as never)
  }

  /** @internal after-commit subscribers: a failing one is logged and the others still run. */
  deliver(list: readonly Subscriber[], event: EventName, payload: unknown): void {
    for (let i = 0; i < list.length; i++) {
      try {
        list[i]!.fn(payload as never)
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

  constructor(private readonly bus: EventBus) {}

  emit<E extends EventName>(event: E, payload: DomainEvents[E]): void {
    this.bus.inTransaction(event, payload)
    ;(this.done ??= []).push([event, payload])
  }

  commit(): void {
    const done = this.done
    this.done = null
    if (done) for (const [event, payload] of done) this.bus.deliver(this.bus.of(event).afterCommit, event, payload)
  }
}
