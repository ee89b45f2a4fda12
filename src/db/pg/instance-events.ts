// Several instances on one Postgres database: the events that invalidate a cache reach every instance.
// Each instance NOTIFYs the channel after a change commits and LISTENs to it; an instance that hears
// another's event first reloads what the event is about (settings, conversion types), then delivers it
// to its own after-commit subscribers, exactly as if it had made the change itself (the routing cache
// drops its table, traffic quality reconfigures…). LISTEN/NOTIFY over a version row that instances poll:
// it costs nothing while nothing changes and arrives within milliseconds, not a poll interval.
// A notification can be lost while an instance's listening connection is down: when the LISTEN is
// re-established, the instance reloads everything, since it cannot know what it missed.
import { randomUUID } from 'node:crypto'
import type { EventBus } from '../../lib/event-bus'
import type { DomainEvents, EventName } from '../../events'
import { errorFields, log } from '../../lib/log'
import type { PgDatabase } from './client'

export const CHANNEL = 'svc_events'

/** Events other instances must hear. Clicks and conversions are not: they invalidate nothing. */
export const SHARED_EVENTS = ['catalog.changed', 'settings.changed', 'conversion-types.changed', 'email-triggers.changed', 'email-automations.changed'] as const
type SharedEvent = (typeof SHARED_EVENTS)[number]

interface Message {
  from: string
  event: SharedEvent
  payload: DomainEvents[SharedEvent]
}

export interface InstanceEvents {
  /** This instance's id in the messages (tests use it). */
  readonly instance: string
  stop(): Promise<void>
}

/** What a reconnect delivers: every cache reloads, whatever it was about. */
const EVERYTHING: { [E in SharedEvent]: DomainEvents[E] } = {
  'catalog.changed': { entity: 'campaign', id: 0, action: 'updated' },
  'settings.changed': { keys: [] },
  'conversion-types.changed': {},
  'email-triggers.changed': {},
  'email-automations.changed': {},
}

/**
 * `reloads[event]`: what to refresh from the database before the event is delivered here (e.g. the
 * settings cache before `settings.changed`).
 */
export async function shareEvents(
  db: PgDatabase,
  events: EventBus,
  opts: { reloads: Partial<Record<SharedEvent, () => Promise<void>>> },
): Promise<InstanceEvents> {
  const instance = randomUUID()
  let relaying = false
  let stopped = false

  for (const event of SHARED_EVENTS) {
    events.on(event, 'after-commit', 'instances.notify', (payload) => {
      if (relaying || stopped) return // heard from another instance: it told everyone already
      const message: Message = { from: instance, event, payload }
      // The change is committed; a failed NOTIFY only delays other instances until their next reconnect
      // reload, so it is logged, not retried through the job loop.
      db.sql.notify(CHANNEL, JSON.stringify(message)).catch((err) => {
        log.error('instances: could not notify other instances', { event, ...errorFields(err) })
      })
    })
  }

  // Deliveries run one after another, so a reload never overtakes the one before it.
  let queue: Promise<void> = Promise.resolve()
  const deliver = (m: Message) => {
    queue = queue.then(async () => {
      if (stopped) return
      try {
        await opts.reloads[m.event]?.()
        relaying = true
        try {
          events.committed(m.event, m.payload as never)
        } finally {
          relaying = false
        }
      } catch (err) {
        log.error('instances: could not apply another instance\'s change', { event: m.event, ...errorFields(err) })
      }
    })
  }

  let listens = 0
  const subscription = await db.sql.listen(
    CHANNEL,
    (text) => {
      let m: Message
      try {
        m = JSON.parse(text) as Message
      } catch {
        return
      }
      if (m.from === instance || !(SHARED_EVENTS as readonly string[]).includes(m.event)) return
      deliver(m)
    },
    () => {
      // The first acknowledgement is the start; any later one is a reconnect after a lost connection.
      if (listens++ === 0) return
      for (const event of SHARED_EVENTS) deliver({ from: 'reconnect', event, payload: EVERYTHING[event] })
    },
  )

  return {
    instance,
    async stop() {
      stopped = true
      await subscription.unlisten().catch(() => {})
      await queue
    },
  }
}

/** For tests and docs: the events an instance shares. */
export function isShared(event: EventName): event is SharedEvent {
  return (SHARED_EVENTS as readonly string[]).includes(event)
}
