// Delivers domain events (src/events.ts) to subscribers, each declared for one phase:
//   in-transaction: runs inside the emitter's database transaction; throwing rolls the change back, so it
//                   may only fail for real database errors (rollups, enqueueing a job).
//   after-commit:   runs once the change is durable; its errors are logged, never thrown back at the
//                   emitter (cache invalidation, waking the job loop).
// An emitter opens a Unit around its transaction: unit.emit() runs the in-transaction subscribers at once
// and remembers the event; unit.commit() runs the after-commit subscribers. A unit whose transaction
// threw is dropped, so after-commit subscribers never hear of a change that was rolled back.
import type { DomainEvents, EventName } from '../events'

export type Phase = 'in-transaction' | 'after-commit'
type Handler<E extends EventName> = (payload: DomainEvents[E]) => void

interface Subscriber {
  name: string
  fn: (payload: never) => void
}

export interface Unit {
  emit<E extends EventName>(event: E, payload: DomainEvents[E]): void
  /** Runs the after-commit subscribers of every event emitted in this unit. */
  commit(): void
}

export class EventBus {
  private readonly subs = new Map<string, Subscriber[]>()

  /** `name` says who subscribes (logs and docs/architecture.md use it). */
  on<E extends EventName>(event: E, phase: Phase, name: string, fn: Handler<E>): void {
    const key = `${phase}:${event}`
    const list = this.subs.get(key) ?? []
    list.push({ name, fn: fn as never })
    this.subs.set(key, list)
  }

  /** Who listens to what, for tests and the architecture doc. */
  subscribers(event: EventName, phase: Phase): string[] {
    return (this.subs.get(`${phase}:${event}`) ?? []).map((s) => s.name)
  }

  unit(): Unit {
    const done: Array<[EventName, unknown]> = []
    return {
      emit: (event, payload) => {
        for (const s of this.subs.get(`in-transaction:${event}`) ?? []) s.fn(payload as never)
        done.push([event, payload])
      },
      commit: () => {
        for (const [event, payload] of done.splice(0)) this.deliverCommitted(event, payload)
      },
    }
  }

  /** For changes with no transaction of their own to join (or already committed): after-commit subscribers only. */
  committed<E extends EventName>(event: E, payload: DomainEvents[E]): void {
    this.deliverCommitted(event, payload)
  }

  private deliverCommitted(event: EventName, payload: unknown): void {
    for (const s of this.subs.get(`after-commit:${event}`) ?? []) {
      try {
        s.fn(payload as never)
      } catch (err) {
        console.error(`[events] ${s.name} failed on ${event}:`, err)
      }
    }
  }
}
