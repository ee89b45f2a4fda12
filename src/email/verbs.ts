// The email feature's verbs (section email): lists and their subscribers. enroll() is also what the
// conversion triggers, the landings' lead forms and the purchase automation call, with their own source.
import { Type } from '@sinclair/typebox'
import { isIP } from 'node:net'
import type { EventBus } from '../lib/event-bus'
import { conflict, invalid, notFound } from '../lib/errors'
import { Int, optionalText, requiredText } from '../lib/fields'
import { parsePage, toPage } from '../lib/paging'
import { iso, parseMoment } from '../lib/time'
import { csvLine, parseCsv } from '../lib/csv'
import { defineVerb } from '../lib/verb'
import { normalizeIp } from '../lib/ip'
import { listPage, PageInput, withId, IdInput } from '../lib/verb-inputs'
import { normalizeEmail } from '../lib/email-address'
import { ListCreate, ListPatch, SubscriberCreate } from './model'
import { SUBSCRIBER_STATUSES, type EmailStore, type NewSubscriber, type OnEnrolled, type SubscriberRow, type SubscriberSource, type SubscriberStatus } from './store/types'

export interface EmailDeps {
  store: EmailStore
  events: EventBus
  /** Inside each new subscriber's transaction (the automations' schedule). */
  onEnrolled?: OnEnrolled
  /** Cancels what is pending for a subscriber (the automations' messages), e.g. when they are removed. */
  cancelPending?: (subscriberId: number) => unknown
}

/** Rows per store read of an export (the store returns up to limit + 1). */
const EXPORT_PAGE = 1000
const EXPORT_COLUMNS = ['id', 'email', 'name', 'status', 'source', 'consent_at', 'consent_ip', 'created_at', 'fields']

/** One subscriber as a CSV line; custom fields as one JSON object (names differ from row to row). */
const exportLine = (r: SubscriberRow) =>
  csvLine([r.id, r.email, r.name, r.status, r.source, iso(r.consentAt), r.consentIp, iso(r.createdAt), r.fields === '{}' ? '' : r.fields])

const MAX_IMPORT_ROWS = 50_000
/** Reasons listed in an import's report; the count covers the rest. */
const MAX_REPORTED = 100
const MAX_FIELDS = 50
const FIELD_NAME = /^[a-z0-9_]{1,40}$/
const MAX_FIELD_VALUE = 1000
/** Line breaks and other control characters: a name or field ends up in mail headers and bodies. */
const CONTROL = /[\u0000-\u001f\u007f]/

/** A subscriber as a person or a program submits it: validated, the address normalised. */
export interface EnrolInput {
  email: unknown
  name?: unknown
  fields?: unknown
  consentAt?: number
  consentIp?: string | null
}

/** The checked enrolment, or invalid naming the field. */
export function subscriberOf(input: EnrolInput, source: SubscriberSource): NewSubscriber {
  if (typeof input.email !== 'string') throw invalid('email: must be a string')
  const email = normalizeEmail(input.email)
  if (!email) throw invalid('email: not a valid email address')
  const name = optionalText(input.name, 'name')
  if (name !== null && CONTROL.test(name)) throw invalid('name: must not contain line breaks or control characters')
  const fields: Record<string, string> = {}
  if (input.fields !== undefined && input.fields !== null) {
    if (typeof input.fields !== 'object' || Array.isArray(input.fields)) throw invalid('fields: must be an object of strings')
    const entries = Object.entries(input.fields as Record<string, unknown>)
    if (entries.length > MAX_FIELDS) throw invalid(`fields: at most ${MAX_FIELDS} fields`)
    for (const [key, value] of entries) {
      if (!FIELD_NAME.test(key)) throw invalid(`fields.${key}: names are 1-40 characters a-z, 0-9 and _`)
      if (typeof value !== 'string') throw invalid(`fields.${key}: must be a string`)
      if (value.length > MAX_FIELD_VALUE) throw invalid(`fields.${key}: must be at most ${MAX_FIELD_VALUE} characters`)
      if (CONTROL.test(value)) throw invalid(`fields.${key}: must not contain line breaks or control characters`)
      fields[key] = value
    }
  }
  let consentIp: string | null = null
  if (input.consentIp !== undefined && input.consentIp !== null && input.consentIp !== '') {
    consentIp = normalizeIp(input.consentIp)
    if (!isIP(consentIp)) throw invalid('consent_ip: not an IP address')
  }
  return { email, name, fields, source, consentAt: input.consentAt ?? Date.now(), consentIp }
}

const SubscriberQuery = Type.Object({
  id: Int({ minimum: 1 }),
  status: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
  cursor: Type.Optional(Type.String()),
})
const SubscriberRef = Type.Object({ id: Int({ minimum: 1 }), subscriber_id: Int({ minimum: 1 }) })

export function emailVerbs({ store, events, onEnrolled, cancelPending }: EmailDeps) {
  /**
   * Adds an address to a list, idempotently (the first consent is kept), and announces a new subscriber
   * once committed. For every producer: admins (manual), CSV import, lead forms, triggers, purchases.
   */
  async function enroll(listId: number, s: NewSubscriber) {
    const result = await store.enroll(listId, s, onEnrolled)
    if (result.created) {
      events.committed('email.subscriber.enrolled', { listId, subscriberId: result.row.id, email: result.row.email, source: s.source })
    }
    return result
  }

  /** A CSV file into a list: every valid row in one transaction; a report of what was taken and why the rest was not. */
  async function importCsv(listId: number, csv: string) {
    const parsed = parseCsv(csv)
    if ('error' in parsed) throw invalid(`csv: line ${parsed.line}: ${parsed.error}`)
    const [head, ...body] = parsed.rows
    if (!head) throw invalid('csv: the file is empty (a header row naming the columns comes first)')
    const columns = head.map((h) => h.trim().toLowerCase().replace(/[\s-]+/g, '_'))
    const col = (name: string) => columns.indexOf(name)
    const emailAt = col('email')
    if (emailAt < 0) throw invalid('csv: no email column in the header row')
    if (body.length > MAX_IMPORT_ROWS) throw invalid(`csv: at most ${MAX_IMPORT_ROWS} rows per import (got ${body.length})`)
    const known = new Set(['email', 'name', 'consent_at', 'consent_ip'])
    const fieldCols = columns.map((c, i) => [c, i] as const).filter(([c]) => !known.has(c) && FIELD_NAME.test(c))
    const ignored = head.filter((_, i) => !known.has(columns[i]!) && !FIELD_NAME.test(columns[i]!))
    const now = Date.now()
    const valid: NewSubscriber[] = []
    const firstRow = new Map<string, number>()
    const errors: Array<{ row: number; reason: string }> = []
    let skipped = 0
    const skip = (row: number, reason: string) => {
      skipped++
      if (errors.length < MAX_REPORTED) errors.push({ row, reason })
    }
    body.forEach((cells, i) => {
      const row = i + 2 // the header is line 1
      if (cells.every((c) => c.trim() === '')) return // a blank line
      const cell = (at: number) => (at < 0 ? undefined : cells[at])
      let consentAt: number | undefined
      const rawAt = cell(col('consent_at'))?.trim()
      if (rawAt) {
        const t = parseMoment(rawAt)
        if (t === null || t > now + 60_000) return skip(row, 'consent_at: not a date in the past')
        consentAt = t
      }
      const fields: Record<string, string> = {}
      for (const [name, at] of fieldCols) if (cells[at]?.trim()) fields[name] = cells[at]!.trim()
      let s: NewSubscriber
      try {
        s = subscriberOf({ email: cell(emailAt) ?? '', name: cell(col('name')), fields, consentAt: consentAt ?? now, consentIp: cell(col('consent_ip'))?.trim() || null }, 'import')
      } catch (err) {
        return skip(row, (err as Error).message)
      }
      const earlier = firstRow.get(s.email)
      if (earlier !== undefined) return skip(row, `duplicate of row ${earlier}`)
      firstRow.set(s.email, row)
      valid.push(s)
    })
    const created = await store.enrollMany(listId, valid)
    for (const r of created) events.committed('email.subscriber.enrolled', { listId, subscriberId: r.id, email: r.email, source: 'import' })
    return {
      list_id: listId, rows: body.filter((c) => c.some((x) => x.trim() !== '')).length, created: created.length,
      already_subscribed: valid.length - created.length, skipped, errors, ignored_columns: ignored,
    }
  }

  /**
   * The post-purchase enrolment: the verb native commerce calls on a successful payment (system actor).
   * The buyer joins the list (source purchase), so the list's automations start for them.
   */
  const purchase = defineVerb({
    name: 'email.purchases.enroll',
    summary: 'Enrol a paying buyer in a list (source purchase): the list\'s automations start for them; idempotent',
    permission: 'email:write',
    input: Type.Object({ list_id: Int({ minimum: 1 }), email: Type.String({ maxLength: 254 }), name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])) }),
    async run(_actor, input) {
      const { row, created } = await enroll(input.list_id, subscriberOf({ email: input.email, name: input.name ?? null }, 'purchase'))
      return { subscriber_id: row.id, created }
    },
  })

  const lists = {
    list: defineVerb({
      name: 'email.lists.list', summary: 'List email lists', permission: 'email:read', input: PageInput,
      run: (_actor, input) => listPage(input, (page) => store.listLists(page)),
    }),
    get: defineVerb({
      name: 'email.lists.get', summary: 'Get an email list', permission: 'email:read', input: IdInput,
      async run(_actor, { id }) {
        const row = await store.findList(id)
        if (!row) throw notFound('email list not found')
        return row
      },
    }),
    create: defineVerb({
      name: 'email.lists.create', summary: 'Create an email list', permission: 'email:write', input: ListCreate,
      run: (_actor, input) => store.createList(requiredText(input.name, 'name')),
    }),
    update: defineVerb({
      name: 'email.lists.update', summary: 'Rename an email list', permission: 'email:write', input: withId(ListPatch),
      async run(_actor, { id, name }) {
        if (name === undefined) {
          const row = await store.findList(id)
          if (!row) throw notFound('email list not found')
          return row
        }
        return store.updateList(id, requiredText(name, 'name'))
      },
    }),
    delete: defineVerb({
      name: 'email.lists.delete', summary: 'Delete an email list and its subscribers (conflict while a landing enrols into it)',
      permission: 'email:write', input: IdInput,
      async run(_actor, { id }) {
        await store.deleteList(id)
        return { ok: true as const }
      },
    }),
  }

  const subscribers = {
    list: defineVerb({
      name: 'email.subscribers.list', summary: "List a list's subscribers (filters status, email)", permission: 'email:read', input: SubscriberQuery,
      async run(_actor, { id, status, email, ...pageInput }) {
        if (status && !(SUBSCRIBER_STATUSES as readonly string[]).includes(status)) {
          throw invalid(`status: must be one of ${SUBSCRIBER_STATUSES.join(', ')}`)
        }
        let address: string | undefined
        if (email) {
          address = normalizeEmail(email) ?? undefined
          if (!address) throw invalid('email: not a valid email address')
        }
        const page = parsePage(pageInput)
        const rows = await store.listSubscribers(id, { status: (status || undefined) as SubscriberStatus | undefined, email: address }, page)
        return toPage(rows, page, (r) => r)
      },
    }),
    get: defineVerb({
      name: 'email.subscribers.get', summary: 'Get a subscriber of a list', permission: 'email:read', input: SubscriberRef,
      async run(_actor, { id, subscriber_id }) {
        const row = await store.findSubscriber(id, subscriber_id)
        if (!row) throw notFound('subscriber not found')
        return row
      },
    }),
    export: defineVerb({
      name: 'email.subscribers.export',
      summary: "Export a list's subscribers as CSV (filters status, email), oldest first",
      permission: 'email:read',
      input: Type.Object({ id: Int({ minimum: 1 }), status: Type.Optional(Type.String()) }),
      async run(_actor, { id, status }) {
        if (status && !(SUBSCRIBER_STATUSES as readonly string[]).includes(status)) {
          throw invalid(`status: must be one of ${SUBSCRIBER_STATUSES.join(', ')}`)
        }
        const filter = { status: (status || undefined) as SubscriberStatus | undefined }
        // The first page now: an unknown list is a 404 before any CSV is sent.
        let rows = await store.listSubscribers(id, filter, { afterId: 0, limit: EXPORT_PAGE - 1 })
        let header = true
        /** The next block of CSV, or null at the end: one page of subscribers per pull. */
        return async (): Promise<string | null> => {
          if (rows.length === 0) return header ? ((header = false), csvLine(EXPORT_COLUMNS)) : null
          const page = rows
          rows = page.length < EXPORT_PAGE ? [] : await store.listSubscribers(id, filter, { afterId: page.at(-1)!.id, limit: EXPORT_PAGE - 1 })
          const out = (header ? csvLine(EXPORT_COLUMNS) : '') + page.map(exportLine).join('')
          header = false
          return out
        }
      },
    }),
    import: defineVerb({
      name: 'email.subscribers.import',
      summary: 'Import subscribers from CSV (header row; email required; name, consent_at, consent_ip; other columns become custom fields)',
      permission: 'email:write',
      input: Type.Object({ id: Int({ minimum: 1 }), csv: Type.String() }),
      run: (_actor, { id, csv }) => importCsv(id, csv),
    }),
    add: defineVerb({
      name: 'email.subscribers.add',
      summary: 'Add an address to a list by hand (idempotent: an address already there is returned as it is)',
      permission: 'email:write',
      input: Type.Composite([Type.Object({ id: Int({ minimum: 1 }) }), SubscriberCreate]),
      async run(_actor, { id, ...input }) {
        let consentAt: number | undefined
        if (input.consent_at !== undefined) {
          const t = parseMoment(input.consent_at)
          if (t === null) throw invalid('consent_at: must be an ISO 8601 date or epoch seconds/milliseconds')
          if (t > Date.now() + 60_000) throw invalid('consent_at: must not be in the future')
          consentAt = t
        }
        const s = subscriberOf({ email: input.email, name: input.name, fields: input.fields, consentAt, consentIp: input.consent_ip }, 'manual')
        return enroll(id, s)
      },
    }),
    restartByEmail: defineVerb({
      name: 'email.subscribers.restart-by-email',
      summary: "As email.subscribers.restart, for the subscriber of a list with this address (a buyer's post-purchase sequence)",
      permission: 'email:write', input: Type.Object({ id: Int({ minimum: 1 }), email: Type.String({ maxLength: 320 }) }),
      async run(_actor, { id, email }) {
        const address = normalizeEmail(email)
        const row = address ? (await store.listSubscribers(id, { email: address }, { afterId: 0, limit: 1 }))[0] : undefined
        if (!row) throw notFound('the address is not in the list')
        if (row.status !== 'active') throw conflict(`the subscriber is ${row.status}: nothing is sent to them`)
        await cancelPending?.(row.id)
        await onEnrolled?.(row, null, Date.now())
        return { ok: true as const, subscriber_id: row.id }
      },
    }),
    restart: defineVerb({
      name: 'email.subscribers.restart',
      summary: "Send the list's automations to a subscriber again, from their first step (e.g. a buyer's post-purchase sequence); pending steps are replaced",
      permission: 'email:write', input: SubscriberRef,
      async run(_actor, { id, subscriber_id }) {
        const row = await store.findSubscriber(id, subscriber_id)
        if (!row) throw notFound('subscriber not found')
        if (row.status !== 'active') throw conflict(`the subscriber is ${row.status}: nothing is sent to them`)
        await cancelPending?.(subscriber_id)
        await onEnrolled?.(row, null, Date.now())
        return { ok: true as const }
      },
    }),
    remove: defineVerb({
      name: 'email.subscribers.remove', summary: 'Remove a subscriber from a list (their history of consent goes with them)',
      permission: 'email:write', input: SubscriberRef,
      async run(_actor, { id, subscriber_id }) {
        await store.removeSubscriber(id, subscriber_id)
        await cancelPending?.(subscriber_id)
        return { ok: true as const }
      },
    }),
  }

  return { lists, subscribers, enroll, purchase }
}

export type EmailVerbs = ReturnType<typeof emailVerbs>
