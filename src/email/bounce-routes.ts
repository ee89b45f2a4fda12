// POST /webhook/mail/:provider (generic, ses, postmark, mailgun, sendgrid): the raw body (any content type,
// up to the 2 MB every body may have) is checked and parsed by bounces.ts, recorded once per event, and
// answered at once. The SNS subscription handshake is a job (`sns_confirm`): fetching SubscribeURL is
// outbound work, retried like any other.
import { Elysia } from 'elysia'
import type { AppContext } from '../context'
import { errorResponse } from '../http/errors'
import { JobError, type JobQueue } from '../jobs/types'
import { expectSuccess, outboundFetch } from '../lib/outbound'
import { checkAndParse, PROVIDERS, WebhookRefused, type Provider } from './bounces'
import type { MailEventStore } from './store/mail-events'

export const SNS_CONFIRM_JOB = 'sns_confirm'

export function registerSnsConfirm(jobs: JobQueue, allowPrivate: boolean): void {
  jobs.register(SNS_CONFIRM_JOB, async (payload, signal) => {
    const url = (payload as { url?: unknown }).url
    if (typeof url !== 'string') throw new JobError('payload has no url', false)
    return expectSuccess(await outboundFetch(url, { method: 'GET' }, { allowPrivate, signal }))
  }, { section: 'email', target: (p) => { try { return new URL(String((p as { url?: unknown }).url)).host } catch { return null } } })
}

export function bounceRoutes(ctx: AppContext, deps: { store: MailEventStore; cancelPending: (subscriberId: number) => unknown }) {
  const ok = (body: unknown) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } })
  return new Elysia({ name: 'mail-webhooks' }).post('/webhook/mail/:provider', async ({ request, params }) => {
    if (!(PROVIDERS as readonly string[]).includes(params.provider)) return errorResponse(404, 'unknown mail provider')
    const raw = await request.text()
    let parsed
    try {
      parsed = checkAndParse({ provider: params.provider as Provider, raw, headers: request.headers, query: new URL(request.url).searchParams }, ctx.settings)
    } catch (err) {
      if (err instanceof WebhookRefused) return errorResponse(err.status, err.message)
      throw err
    }
    if ('confirm' in parsed) {
      await ctx.jobs.enqueue(SNS_CONFIRM_JOB, { url: parsed.confirm })
      ctx.jobs.kick()
      return ok({ ok: true, confirming: true })
    }
    const r = await deps.store.record(parsed.events)
    for (const id of r.changedSubscribers) await deps.cancelPending(id)
    return ok({ ok: true, recorded: r.recorded, duplicates: r.duplicates })
  }, { parse: 'none', detail: { tags: ['email'], summary: 'Bounces and complaints from a mail provider (generic, ses, postmark, mailgun, sendgrid)' } })
}
