// Automations: when an address joins a list, each active automation of the list schedules its messages,
// one `email_automation_step` job per message, due `delay_minutes` after the enrolment, in the enrolment's
// own transaction (an enrolment never commits without its schedule, and the schedule survives restarts).
// A step job reads its message when it is due (an edit reaches what is still pending), skips a subscriber
// who is no longer active, and queues the mail in the outbox. Unsubscribing or removing the subscriber
// cancels every pending step (jobs ref `subscriber:<id>`).
import type { Tx } from '../db/engine'
import type { JobQueue } from '../context'
import { JobError } from '../jobs'
import { errorFields, log } from '../lib/log'
import { renderMessage } from './macros'
import type { Sender } from './outbox'
import type { AutomationRow, AutomationStore } from './store/automations'
import type { EmailStore, OnEnrolled, SubscriberRow } from './store/types'
import type { UnsubscribeLinks } from './unsubscribe'

export const STEP_JOB = 'email_automation_step'
const MINUTE = 60_000

/** The jobs ref of everything pending for one subscriber. */
export const subscriberRef = (subscriberId: number) => `subscriber:${subscriberId}`

export class AutomationTable {
  private byList = new Map<number, AutomationRow[]>()
  private loaded = false
  private loading: Promise<void> | null = null

  constructor(private readonly store: AutomationStore) {}

  reload(): Promise<void> {
    const p = this.store.active().then((rows) => {
      const next = new Map<number, AutomationRow[]>()
      for (const r of rows) next.set(r.listId, [...(next.get(r.listId) ?? []), r])
      this.byList = next
      this.loaded = true
    }).catch((err) => log.error('email: could not load the automations', errorFields(err)))
    this.loading = p
    return p
  }

  /** The active automations of a list; a Promise only before the first load finished. */
  of(listId: number): readonly AutomationRow[] | Promise<readonly AutomationRow[]> {
    if (!this.loaded) return (this.loading ?? this.reload()).then(() => this.byList.get(listId) ?? [])
    return this.byList.get(listId) ?? []
  }
}

/** The hook enroll() runs inside the enrolment's transaction: one job per message of each automation. */
export function scheduleAutomations(table: AutomationTable, jobs: JobQueue): OnEnrolled {
  /** `from`: when the sequence starts (the enrolment; now for a restart). */
  return (row: SubscriberRow, tx: Tx, from = row.createdAt) => {
    const schedule = (automations: readonly AutomationRow[]) => {
      const pending: Promise<number>[] = []
      for (const a of automations) {
        a.steps.forEach((step, index) => {
          const id = jobs.enqueue(STEP_JOB, { automation_id: a.id, step: index, subscriber_id: row.id, list_id: row.listId }, {
            tx: tx ?? undefined, runAt: from + step.delay_minutes * MINUTE, ref: subscriberRef(row.id),
          })
          if (id instanceof Promise) pending.push(id)
        })
      }
      if (pending.length) return Promise.all(pending).then(() => {})
    }
    const automations = table.of(row.listId)
    return automations instanceof Promise ? automations.then(schedule) : schedule(automations)
  }
}

export function registerAutomationSteps(deps: { jobs: JobQueue; automations: AutomationStore; lists: EmailStore; sender: Sender; links: UnsubscribeLinks }): void {
  deps.jobs.register(STEP_JOB, async (payload, _signal, job) => {
    const p = payload as { automation_id?: unknown; step?: unknown; subscriber_id?: unknown; list_id?: unknown }
    if (typeof p.automation_id !== 'number' || typeof p.step !== 'number' || typeof p.subscriber_id !== 'number' || typeof p.list_id !== 'number') {
      throw new JobError('payload is not an automation step', false)
    }
    const automation = await deps.automations.find(p.automation_id)
    if (!automation || !automation.active) return 'not sent: the automation was deleted or paused'
    const step = automation.steps[p.step]
    if (!step) return 'not sent: the automation no longer has this message'
    const subscriber = await deps.lists.findSubscriber(p.list_id, p.subscriber_id)
    if (!subscriber || subscriber.status !== 'active') return `not sent: the subscriber is ${subscriber?.status ?? 'removed'}`
    const message = renderMessage(step, subscriber, deps.links.url({ subscriberId: subscriber.id, listId: subscriber.listId }))
    // Keyed by this job: an attempt that queued the mail but crashed before its outcome was recorded is run
    // again at the next start, and must not queue the mail a second time.
    const { ids, status } = await deps.sender.queue([{ ...message, dedupKey: `automation-step:${job.id}` }])
    return `message ${step.subject ? `"${message.subject}" ` : ''}queued as outbox ${ids[0]} (${status})`
  }, { section: 'email' })
}
