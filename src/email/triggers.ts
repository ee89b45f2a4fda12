// Postback rule 6: after a conversion is recorded, every active trigger of the click's offer enrols the
// buyer in its target list. The postback path only looks the offer up in an in-memory table and, when a
// trigger matches, enqueues an `email_enroll` job in the conversion's own transaction; the enrolment itself
// happens in the job (durable, retried, visible under section email). Only types that count as a
// conversion fire triggers; chargebacks, rejects and other negative or uncounted types never do.
import type { EventBus } from '../lib/event-bus'
import type { JobQueue } from '../context'
import { JobError } from '../jobs'
import { errorFields, log } from '../lib/log'
import type { TriggerStore } from './store/triggers'
import { subscriberOf } from './verbs'
import type { NewSubscriber } from './store/types'
import type { RecordedConversion } from '../postback'
import type { Tx } from '../db/engine'

export const ENROL_JOB = 'email_enroll'

/**
 * Where a buyer's address comes from when the postback carried none: the lead a landing captured for the
 * click (the landings issue fills this in). null: no address, nothing enrolled, nothing fails.
 */
export type LeadEmailOf = (clickId: string) => Promise<string | null>

export class TriggerTable {
  private byOffer = new Map<number, number[]>()
  private loading: Promise<void> | null = null
  private loaded = false

  constructor(private readonly store: TriggerStore) {}

  /** (Re)reads every active trigger; a failed read keeps the table it had and is logged. */
  reload(): Promise<void> {
    const p = this.store.active().then((rows) => {
      const next = new Map<number, number[]>()
      for (const r of rows) next.set(r.offerId, [...(next.get(r.offerId) ?? []), r.targetListId])
      this.byOffer = next
      this.loaded = true
    }).catch((err) => log.error('email: could not load the triggers', errorFields(err)))
    this.loading = p
    return p
  }

  /** The lists a conversion of this offer enrols into; a Promise only before the first load finished. */
  listsFor(offerId: number): readonly number[] | Promise<readonly number[]> {
    if (!this.loaded) return (this.loading ?? this.reload()).then(() => this.byOffer.get(offerId) ?? [])
    return this.byOffer.get(offerId) ?? []
  }
}

export function subscribeTriggers(deps: {
  events: EventBus
  jobs: JobQueue
  table: TriggerTable
  enroll: (listId: number, s: NewSubscriber) => Promise<unknown>
  /** Left out until landings capture leads: a conversion without email= then has no address at all. */
  leadEmailOf?: LeadEmailOf
}): void {
  const { events, jobs, table } = deps
  const enqueued = new WeakSet<object>()
  /** Whether a conversion enrols its buyer: counted, not negative, not the operator's own click. */
  const fires = (c: RecordedConversion) => c.offerId !== null && c.type.include_in_conversions && !c.type.negative && !c.excluded
  /**
   * Enqueues the enrolments of a transaction's conversions (a postback batch's) at once, just before the
   * commit: on Postgres one INSERT for the batch (it was a round trip per conversion, one after another),
   * registered before the reports' rollup, which locks its hot rows for the COMMIT only.
   */
  const enrolAll = (cs: readonly RecordedConversion[], tx: Tx) => {
    // No address and nowhere to look one up: nothing to enrol, so no job either.
    const firing = cs.filter((c) => fires(c) && (c.email || deps.leadEmailOf))
    if (firing.length === 0) return
    const enqueue = (lists: ReadonlyArray<readonly number[]>) => {
      const payloads: Array<{ list_id: number; email: string | null; click_id: string; conversion_id: number }> = []
      firing.forEach((c, i) => {
        if (lists[i]!.length === 0) return
        enqueued.add(c)
        for (const listId of lists[i]!) payloads.push({ list_id: listId, email: c.email, click_id: c.clickId, conversion_id: c.id })
      })
      if (payloads.length === 0) return
      const ids = jobs.enqueueMany(ENROL_JOB, payloads, { tx: tx ?? undefined })
      if (ids instanceof Promise) return ids.then(() => {})
    }
    const lists = firing.map((c) => table.listsFor(c.offerId!))
    return lists.some((l) => l instanceof Promise) ? Promise.all(lists).then(enqueue) : enqueue(lists as Array<readonly number[]>)
  }
  events.on('conversion.recorded', 'before-commit', 'email.trigger-enrol', enrolAll)
  events.on('conversion.recorded', 'after-commit', 'email.wake-job-loop', (c) => {
    if (enqueued.delete(c)) jobs.kick()
  })
  // postback_status_updates: a conversion that moves to a type that fires (reject → sale) fires as a new one
  // would; one that already fired (lead → sale) does not enrol the buyer twice.
  events.on('conversion.updated', 'before-commit', 'email.trigger-enrol-update', (us, tx) =>
    enrolAll(us.filter((u) => u.after.type.slug !== u.before.type.slug && !fires(u.before)).map((u) => u.after), tx))
  events.on('conversion.updated', 'after-commit', 'email.wake-job-loop-update', (u) => {
    if (enqueued.delete(u.after)) jobs.kick()
  })
  events.on('email-triggers.changed', 'after-commit', 'email.triggers-cache', () => {
    void table.reload()
  })

  // A lead form on a landing bound to a list: the enrolment is a job written with the lead (same
  // transaction), so a crash between the two cannot lose it, and a deleted list ends it cleanly.
  const leadJobs = new WeakSet<object>()
  events.on('lead.captured', 'in-transaction', 'email.lead-enrol', (lead, tx) => {
    if (lead.emailListId === null) return
    leadJobs.add(lead)
    // Subscriber fields end up in mail headers and bodies: a textarea's line breaks become spaces.
    const fields = Object.fromEntries(Object.entries(lead.fields).map(([k, v]) => [k, v.replace(/[\u0000-\u001f\u007f]+/g, ' ')]))
    const id = jobs.enqueue(ENROL_JOB, {
      list_id: lead.emailListId, email: lead.email, name: lead.name, fields, source: 'lead', consent_at: lead.createdAt,
      consent_ip: lead.ip, click_id: lead.clickId, lead_id: lead.leadId,
    }, { tx: tx ?? undefined })
    if (id instanceof Promise) return id.then(() => {})
  })
  events.on('lead.captured', 'after-commit', 'email.lead-wake-job-loop', (lead) => {
    if (leadJobs.delete(lead)) jobs.kick()
  })
  // A paid order of a product with a list: the buyer joins it (source purchase), which starts the list's
  // automations: the post-purchase sequence. A job written with the order, like the lead's.
  events.on('order.paid', 'in-transaction', 'email.purchase-enrol', (order, tx) => {
    if (order.emailListId === null || !order.email) return
    leadJobs.add(order)
    const id = jobs.enqueue(ENROL_JOB, {
      list_id: order.emailListId, email: order.email, source: 'purchase', consent_at: order.paidAt, order_id: order.orderId, click_id: order.clickId,
    }, { tx: tx ?? undefined })
    if (id instanceof Promise) return id.then(() => {})
  })
  events.on('order.paid', 'after-commit', 'email.purchase-wake-job-loop', (order) => {
    if (leadJobs.delete(order)) jobs.kick()
  })

  jobs.register(ENROL_JOB, async (payload) => {
    const p = payload as { list_id?: unknown; email?: unknown; click_id?: unknown; source?: unknown; name?: unknown; fields?: unknown; consent_at?: unknown; consent_ip?: unknown }
    if (typeof p.list_id !== 'number') throw new JobError('payload has no list_id', false)
    const email = typeof p.email === 'string' && p.email.trim()
      ? p.email
      : typeof p.click_id === 'string' && deps.leadEmailOf ? await deps.leadEmailOf(p.click_id) : null
    if (!email) return 'no email for this buyer: nothing enrolled'
    let s: NewSubscriber
    try {
      s = p.source === 'lead' || p.source === 'purchase'
        ? subscriberOf({ email, name: p.name, fields: p.fields, consentAt: typeof p.consent_at === 'number' ? p.consent_at : undefined, consentIp: typeof p.consent_ip === 'string' ? p.consent_ip : null }, p.source)
        : subscriberOf({ email }, 'trigger')
    } catch {
      return 'the buyer\'s email is not a valid address: nothing enrolled'
    }
    try {
      const r = (await deps.enroll(p.list_id, s)) as { created: boolean }
      return r.created ? `enrolled ${s.email}` : `${s.email} was already in the list`
    } catch (err) {
      // The list was deleted since: nothing to enrol into, and never will be.
      if ((err as { code?: string }).code === 'not_found') throw new JobError('the email list no longer exists', false)
      throw err
    }
  }, { section: 'email' })
}
