// The sending side: messages go into the outbox, the job loop sends each through the relay (`email_send`
// jobs, section email), and the outbox shows what happened. Without SVC_SMTP_URL, or without a From address
// (the email_from setting, else SVC_EMAIL_FROM, else noreply@<host of SVC_PUBLIC_URL>: config.ts), messages
// wait as `unsent`; the first start with both, or setting email_from, queues them, so nothing written is lost.
import { randomUUID } from 'node:crypto'
import type { Tx } from '../db/engine'
import type { JobQueue, SettingsStore } from '../context'
import { JobError } from '../jobs'
import type { EventBus } from '../lib/event-bus'
import { errorFields, log } from '../lib/log'
import type { MailTransport } from './smtp'
import type { UnsubscribeLinks } from './unsubscribe'
import type { EnqueueSend, NewMessage, OutboxStore } from './store/outbox-types'

export const SEND_JOB = 'email_send'
/** Unsent messages queued per transaction at start. */
const RELEASE_BATCH = 500

export interface Sender {
  /** Writes the messages to the outbox (queued with their jobs when a relay and a From exist, else unsent) and wakes the loop. */
  queue(messages: readonly NewMessage[]): Promise<{ ids: number[]; status: 'queued' | 'unsent' }>
  /** With a relay and a From (at start, and when email_from is set): every unsent message gets its job. */
  releaseUnsent(): Promise<number>
}

/** Said in the send job's error when a queued message meets no From (email_from cleared since it was queued). */
const NO_FROM = 'no From address: set the email_from setting, SVC_EMAIL_FROM, or SVC_PUBLIC_URL (mail then comes from noreply@<its host>)'

export function createSender(deps: {
  outbox: OutboxStore; jobs: JobQueue; settings: SettingsStore; transport: MailTransport | null; smtpHost: string | null; links: UnsubscribeLinks
  /** config.emailFrom: the From while the email_from setting is unset. */
  defaultFrom: string | null
  /** email_from written: messages that waited for a From are queued. */
  events: EventBus
}): Sender {
  const { outbox, jobs, settings, transport } = deps
  /** The setting wins over SVC_EMAIL_FROM and the address derived from SVC_PUBLIC_URL. */
  const fromOf = () => settings.get('email_from') ?? deps.defaultFrom
  /** Messages are queued only when they can go out; otherwise they wait as unsent, as without a relay. */
  const canSend = () => transport !== null && fromOf() !== null
  const enqueue: EnqueueSend = (id: number, tx: Tx) => jobs.enqueue(SEND_JOB, { outbox_id: id }, { tx: tx ?? undefined })

  jobs.register(SEND_JOB, async (payload) => {
    const id = (payload as { outbox_id?: unknown }).outbox_id
    if (typeof id !== 'number') throw new JobError('payload has no outbox_id', false)
    const row = await outbox.get(id)
    if (!row) return `outbox message ${id} no longer exists`
    if (row.status !== 'queued') return `not sent: the message is ${row.status}`
    // Checked now, not when it was queued: an address that unsubscribed or bounced meanwhile is never mailed.
    const reason = await outbox.suppression(row.toEmail, row.listId)
    if (reason) {
      await outbox.markSuppressed(id, reason)
      return `suppressed: ${reason}`
    }
    if (!transport) throw new JobError('SVC_SMTP_URL is not set', true) // only after a restart without the relay
    const from = fromOf()
    if (!from) throw new JobError(NO_FROM, true) // only when email_from was cleared after the message was queued
    const address = from.includes('<') ? from.slice(from.lastIndexOf('<') + 1, -1) : from
    const messageId = `${id}.${randomUUID()}@${address.slice(address.lastIndexOf('@') + 1)}`
    const reply = await transport.send({
      from, to: row.toEmail, subject: row.subject, text: row.textBody, html: row.htmlBody, messageId,
      headers: row.subscriberId !== null && row.listId !== null ? unsubscribeHeaders(deps.links, { subscriberId: row.subscriberId, listId: row.listId }, address) : undefined,
    })
    await outbox.markSent(id, `<${messageId}>`, reply)
    return reply
  }, { section: 'email', target: () => deps.smtpHost })

  const sender: Sender = {
    async queue(messages) {
      const sendable = canSend()
      const ids = await outbox.add(messages, sendable ? enqueue : null)
      if (sendable && ids.length) jobs.kick()
      return { ids, status: sendable ? 'queued' : 'unsent' }
    },
    async releaseUnsent() {
      if (!canSend()) return 0
      let total = 0
      for (let n = await outbox.releaseUnsent(enqueue, RELEASE_BATCH); n > 0; n = await outbox.releaseUnsent(enqueue, RELEASE_BATCH)) total += n
      if (total > 0) {
        log.info('email: queued messages written while no SMTP relay or no From address was configured', { messages: total })
        jobs.kick()
      }
      return total
    },
  }
  // The From can appear while the server runs (email_from written here or, on Postgres, by another instance:
  // keys [] means "reload everything"): what waited for it goes out now, not at the next start.
  deps.events.on('settings.changed', 'after-commit', 'email.release-unsent', ({ keys }) => {
    if (keys.length > 0 && !keys.includes('email_from')) return
    sender.releaseUnsent().catch((err) => log.error('email: queueing unsent messages failed', errorFields(err)))
  })
  return sender
}

/**
 * RFC 2369 and RFC 8058: the https link (one click, when SVC_PUBLIC_URL is set) and a mailto to the From
 * address with the token in the subject, for clients that only do mailto (read by a person for now).
 */
function unsubscribeHeaders(links: UnsubscribeLinks, target: { subscriberId: number; listId: number }, from: string): Record<string, string> {
  const mailto = `<mailto:${from}?subject=${encodeURIComponent(`unsubscribe ${links.token(target)}`)}>`
  const url = links.url(target)
  return url
    ? { 'List-Unsubscribe': `<${url}>, ${mailto}`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
    : { 'List-Unsubscribe': mailto }
}
