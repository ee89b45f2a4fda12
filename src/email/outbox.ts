// The sending side: messages go into the outbox, the job loop sends each through the relay (`email_send`
// jobs, section email), and the outbox shows what happened. Without SVC_SMTP_URL messages wait as
// `unsent`; the first start with a relay queues them, so nothing written is ever lost.
import { randomUUID } from 'node:crypto'
import type { Tx } from '../db/engine'
import type { JobQueue } from '../jobs/types'
import { JobError } from '../jobs/types'
import type { SettingsStore } from '../settings/store'
import { log } from '../lib/log'
import type { MailTransport } from './smtp'
import type { UnsubscribeLinks } from './unsubscribe'
import type { EnqueueSend, NewMessage, OutboxStore } from './store/outbox-types'

export const SEND_JOB = 'email_send'
/** Unsent messages queued per transaction at start. */
const RELEASE_BATCH = 500

export interface Sender {
  /** Writes the messages to the outbox (queued with their jobs when a relay is configured) and wakes the loop. */
  queue(messages: readonly NewMessage[]): Promise<{ ids: number[]; status: 'queued' | 'unsent' }>
  /** At start, with a relay: every unsent message gets its job. */
  releaseUnsent(): Promise<number>
}

export function createSender(deps: {
  outbox: OutboxStore; jobs: JobQueue; settings: SettingsStore; transport: MailTransport | null; smtpHost: string | null; links: UnsubscribeLinks
}): Sender {
  const { outbox, jobs, settings, transport } = deps
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
    const from = settings.get('email_from')
    if (!from) throw new JobError('email_from is not set (PUT /admin/api/settings {"email_from": "Name <you@example.com>"})', true)
    const address = from.includes('<') ? from.slice(from.lastIndexOf('<') + 1, -1) : from
    const messageId = `${id}.${randomUUID()}@${address.slice(address.lastIndexOf('@') + 1)}`
    const reply = await transport.send({
      from, to: row.toEmail, subject: row.subject, text: row.textBody, html: row.htmlBody, messageId,
      headers: row.subscriberId !== null && row.listId !== null ? unsubscribeHeaders(deps.links, { subscriberId: row.subscriberId, listId: row.listId }, address) : undefined,
    })
    await outbox.markSent(id, `<${messageId}>`, reply)
    return reply
  }, { section: 'email', target: () => deps.smtpHost })

  return {
    async queue(messages) {
      const ids = await outbox.add(messages, transport ? enqueue : null)
      if (transport && ids.length) jobs.kick()
      return { ids, status: transport ? 'queued' : 'unsent' }
    },
    async releaseUnsent() {
      if (!transport) return 0
      let total = 0
      for (let n = await outbox.releaseUnsent(enqueue, RELEASE_BATCH); n > 0; n = await outbox.releaseUnsent(enqueue, RELEASE_BATCH)) total += n
      if (total > 0) {
        log.info('email: queued messages written while no SMTP relay was configured', { messages: total })
        jobs.kick()
      }
      return total
    },
  }
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
