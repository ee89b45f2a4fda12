// Filling a message for one subscriber: {name}, {email}, {unsubscribe_url} and their custom fields {field}.
// Values never carry line breaks (refused when stored), and the subject is also cleaned here, so no value
// can start a header of its own; the relay library encodes the rest. A body without {unsubscribe_url}
// gets the link as a footer: every message svc sends can be unsubscribed from.
import type { NewMessage } from './store/outbox-types'
import type { SubscriberRow } from './store/types'
import { escapeHtml } from '../lib/html'

const MACRO = /\{([a-z0-9_]{1,40})\}/g

function fieldsOf(s: SubscriberRow): Record<string, string> {
  try {
    const v = JSON.parse(s.fields) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {}
  } catch {
    return {}
  }
}

/** Known macros are replaced; an unknown one is left as written (a typo shows in the test message). */
export function fill(template: string, values: Record<string, string>, escape: (v: string) => string = (v) => v): string {
  return template.replace(MACRO, (whole, name: string) => (Object.prototype.hasOwnProperty.call(values, name) ? escape(values[name]!) : whole))
}


export function renderMessage(t: { subject: string; text: string; html: string | null }, s: SubscriberRow, unsubscribeUrl: string | null): NewMessage {
  // The subscriber's own fields first, so a field cannot override name, email or the link.
  const values = { ...fieldsOf(s), name: s.name ?? '', email: s.email, unsubscribe_url: unsubscribeUrl ?? '' }
  let text = fill(t.text, values)
  let html = t.html === null ? null : fill(t.html, values, escapeHtml)
  if (unsubscribeUrl) {
    if (!t.text.includes('{unsubscribe_url}')) text += `\n\n--\nUnsubscribe: ${unsubscribeUrl}\n`
    if (html !== null && !t.html!.includes('{unsubscribe_url}')) html += `\n<p style="font-size:small"><a href="${escapeHtml(unsubscribeUrl)}">Unsubscribe</a></p>\n`
  }
  return {
    listId: s.listId,
    subscriberId: s.id,
    toEmail: s.email,
    subject: fill(t.subject, values).replace(/[\r\n\u0000-\u001f\u007f]+/g, ' '),
    textBody: text,
    htmlBody: html,
  }
}
