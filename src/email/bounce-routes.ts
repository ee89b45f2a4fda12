// POST /webhook/mail/:provider (generic, ses, postmark, mailgun, sendgrid): the raw body (any content type,
// up to the 2 MB every body may have) is checked and parsed by bounces.ts, recorded once per event, and
// answered at once. The SNS subscription handshake is a job (`sns_confirm`): fetching SubscribeURL is
// outbound work, retried like any other.
import { Elysia } from 'elysia'
import type { AppContext, JobQueue } from '../context'
import { errorResponse } from '../http/errors'
import { tooLargeResponse, WEBHOOK_BODY_BYTES } from '../http/body-limit'
import { readBodyLimited } from '../http/raw-body'
import { RefusalThrottle } from '../http/refusal-throttle'
import { JobError } from '../jobs'
import { expectSuccess, outboundFetch } from '../lib/outbound'
import { checkAndParse, PROVIDERS, WebhookRefused, type Provider } from './bounces'
import { REPLAYED, type MailEvent, type MailEventStore } from './store/mail-events'
import { Type } from '@sinclair/typebox'
import { adminGuard } from '../http/admin-guard'
import { docQuery } from '../http/api-docs'
import { invalid } from '../lib/errors'
import { parseCursor, parseLimit, toPage } from '../lib/paging'
import { iso } from '../lib/time'
import { adminActor, defineVerb, invoke } from '../lib/verb'
import { normalizeEmail } from '../lib/email-address'
import { firstParam as first } from '../http/collection'

export const SNS_CONFIRM_JOB = 'sns_confirm'

export function registerSnsConfirm(jobs: JobQueue, allowPrivate: boolean): void {
  jobs.register(SNS_CONFIRM_JOB, async (payload, signal) => {
    const url = (payload as { url?: unknown }).url
    if (typeof url !== 'string') throw new JobError('payload has no url', false)
    return expectSuccess(await outboundFetch(url, { method: 'GET' }, { allowPrivate, signal }))
  }, { section: 'email', target: (p) => { try { return new URL(String((p as { url?: unknown }).url)).host } catch { return null } } })
}

/** The verb of the admin view: what providers reported, newest first (section email). */
export function mailEventsVerb(store: MailEventStore) {
  return defineVerb({
    name: 'email.mail-events.list',
    summary: 'List what mail providers reported (bounces, complaints, unsubscribes), newest first; filters email, kind',
    permission: 'email:read',
    input: Type.Object({ email: Type.Optional(Type.String()), kind: Type.Optional(Type.String()), limit: Type.Optional(Type.String()), cursor: Type.Optional(Type.String()) }),
    async run(_actor, input) {
      const kind = input.kind || undefined
      if (kind && !(MAIL_EVENT_KINDS as readonly string[]).includes(kind)) throw invalid(`kind: must be one of ${MAIL_EVENT_KINDS.join(', ')}`)
      let email: string | undefined
      if (input.email) {
        email = normalizeEmail(input.email) ?? undefined
        if (!email) throw invalid('email: not a valid email address')
      }
      const limit = parseLimit(input.limit)
      const rows = await store.list({ email, kind: kind as MailEvent['kind'] | undefined, before: parseCursor(input.cursor), limit: limit + 1 })
      return toPage(rows, { limit }, (r) => ({
        id: r.id, provider: r.provider, kind: r.kind, hard: r.hard, email: r.email, occurred_at: iso(r.occurredAt), received_at: iso(r.createdAt),
      }))
    },
  })
}

const MAIL_EVENT_KINDS = ['bounce', 'complaint', 'unsubscribe'] as const

export function bounceRoutes(ctx: AppContext, deps: { store: MailEventStore; list: ReturnType<typeof mailEventsVerb>; cancelPending: (subscriberId: number) => unknown }) {
  const ok = (body: unknown) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } })
  const { list } = deps
  // 401s (a bad token, signature or replay) a minute per address before 429, as on the commerce webhooks.
  const throttle = new RefusalThrottle(ctx.config.trustProxy)
  return new Elysia({ name: 'mail-webhooks' })
    .use(adminGuard(ctx))
    .get('/admin/api/mail-events', ({ query, admin }) =>
      invoke(list, adminActor(admin), { email: first(query.email), kind: first(query.kind), limit: first(query.limit), cursor: first(query.cursor) }),
    { permission: 'email:read', query: docQuery({ email: 'one address', kind: MAIL_EVENT_KINDS.join(', '), limit: 'page size', cursor: 'next_cursor of the previous page' }), detail: { tags: ['email'], summary: list.summary } })
    .post('/webhook/mail/:provider', async ({ request, params, server }) => {
    if (!(PROVIDERS as readonly string[]).includes(params.provider)) return errorResponse(404, 'unknown mail provider')
    const client = throttle.clientOf(request, server)
    // Counted as it streams (a chunked body declares no length): past 2 MB, a JSON 413 and nothing recorded.
    const body = await readBodyLimited(request, WEBHOOK_BODY_BYTES).catch(() => null)
    if (body === null) return tooLargeResponse(WEBHOOK_BODY_BYTES)
    const raw = new TextDecoder().decode(body)
    let parsed
    try {
      parsed = checkAndParse({ provider: params.provider as Provider, raw, headers: request.headers, query: new URL(request.url).searchParams }, ctx.settings)
    } catch (err) {
      if (err instanceof WebhookRefused) return err.status === 401 ? throttle.refused(client, errorResponse(401, err.message)) : errorResponse(err.status, err.message)
      throw err
    }
    if ('confirm' in parsed) {
      await ctx.jobs.enqueue(SNS_CONFIRM_JOB, { url: parsed.confirm })
      ctx.jobs.kick()
      return ok({ ok: true, confirming: true })
    }
    const r = await deps.store.record(parsed.events, parsed.nonce)
    // A signature already used for another body (Mailgun signs no body): refused like a bad signature.
    if (r === REPLAYED) return throttle.refused(client, errorResponse(401, 'signature already used'))
    for (const id of r.changedSubscribers) await deps.cancelPending(id)
    return ok({ ok: true, recorded: r.recorded, duplicates: r.duplicates })
  }, { parse: 'none', detail: { tags: ['email'], summary: 'Bounces and complaints from a mail provider (generic, ses, postmark, mailgun, sendgrid)' } })
}
