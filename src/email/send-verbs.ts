// Verbs of the sending side (section email): a broadcast to a list's active subscribers, and the outbox.
import { Type } from '@sinclair/typebox'
import { invalid, notFound } from '../lib/errors'
import { Int, requiredText } from '../lib/fields'
import { parseCursor, parseLimit, toPage } from '../lib/paging'
import { defineVerb } from '../lib/verb'
import { normalizeEmail } from '../lib/email-address'
import { renderMessage } from './macros'
import type { Sender } from './outbox'
import type { UnsubscribeLinks } from './unsubscribe'
import type { EmailStore } from './store/types'
import { OUTBOX_STATUSES, type OutboxStatus, type OutboxStore } from './store/outbox-types'

const MAX_SUBJECT = 998 // RFC 5322 line length
const MAX_BODY = 500_000
const CONTROL_IN_SUBJECT = /[\u0000-\u001f\u007f]/

export const BroadcastCreate = Type.Object({
  subject: Type.String({ maxLength: MAX_SUBJECT, description: 'macros {name} {email} {unsubscribe_url} and custom fields {field}' }),
  text: Type.String({ maxLength: MAX_BODY, description: 'plain-text body, same macros' }),
  html: Type.Optional(Type.Union([Type.String({ maxLength: MAX_BODY }), Type.Null()])),
})

const text = () => Type.Optional(Type.String())

export function sendVerbs(deps: { lists: EmailStore; outbox: OutboxStore; sender: Sender; links: UnsubscribeLinks; cancelPending: (subscriberId: number) => unknown }) {
  const { lists, outbox, sender, links } = deps
  return {
    links,
    broadcast: defineVerb({
      name: 'email.broadcasts.send',
      summary: "Send one message to every active subscriber of a list (macros filled per subscriber); queued in the outbox",
      permission: 'email:write',
      input: Type.Composite([Type.Object({ id: Int({ minimum: 1 }) }), BroadcastCreate]),
      async run(_actor, { id, ...input }) {
        const subject = requiredText(input.subject, 'subject', MAX_SUBJECT)
        if (CONTROL_IN_SUBJECT.test(subject)) throw invalid('subject: must not contain line breaks or control characters')
        const body = requiredText(input.text, 'text', MAX_BODY)
        const html = input.html == null || input.html.trim() === '' ? null : input.html
        if (!(await lists.findList(id))) throw notFound('email list not found')
        const recipients = await outbox.activeSubscribers(id)
        const messages = recipients.map((s) => renderMessage({ subject, text: body, html }, s, links.url({ subscriberId: s.id, listId: id })))
        const { ids, status } = await sender.queue(messages)
        return { list_id: id, messages: ids.length, status }
      },
    }),
    unsubscribe: defineVerb({
      name: 'email.unsubscribe',
      summary: 'Unsubscribe the subscriber an unsubscribe link names (public: the signed token is the permission)',
      permission: null,
      input: Type.Object({ token: Type.String({ maxLength: 200 }) }),
      async run(_actor, { token }) {
        const target = links.verify(token)
        if (!target) throw notFound('this unsubscribe link is not valid')
        const outcome = await lists.unsubscribe(target.listId, target.subscriberId)
        // What was still scheduled for them (automation messages) is cancelled; a message already queued is
        // suppressed when its turn comes (the send-time check).
        if (outcome === 'unsubscribed') await deps.cancelPending(target.subscriberId)
        // A subscriber removed since the mail was sent has nothing left to unsubscribe from: the same answer.
        return { outcome: outcome === 'unknown' ? 'already' as const : outcome }
      },
    }),
    outbox: defineVerb({
      name: 'email.outbox.list',
      summary: 'List outgoing messages, newest first (filters status, list_id, email)',
      permission: 'email:read',
      input: Type.Object({ status: text(), list_id: text(), email: text(), limit: text(), cursor: text() }),
      async run(_actor, input) {
        const status = input.status || undefined
        if (status && !(OUTBOX_STATUSES as readonly string[]).includes(status)) throw invalid(`status: must be one of ${OUTBOX_STATUSES.join(', ')}`)
        let listId: number | undefined
        if (input.list_id) {
          if (!/^\d{1,9}$/.test(input.list_id)) throw invalid('list_id: must be a whole number')
          listId = Number(input.list_id)
        }
        let toEmail: string | undefined
        if (input.email) {
          toEmail = normalizeEmail(input.email) ?? undefined
          if (!toEmail) throw invalid('email: not a valid email address')
        }
        const limit = parseLimit(input.limit)
        const rows = await outbox.list({ status: status as OutboxStatus | undefined, listId, toEmail, before: parseCursor(input.cursor), limit: limit + 1 })
        return toPage(rows, { limit }, (r) => r)
      },
    }),
  }
}

export type SendVerbs = ReturnType<typeof sendVerbs>
