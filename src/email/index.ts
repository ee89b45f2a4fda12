// The email feature (issue 9, first parts): lists and subscribers, the outbox and delivery through the
// operator's SMTP relay (section email). Triggers, automations, unsubscribe links, bounces and magic links
// build on its enroll(), its sender and the job loop's kinds.
import type { AppContext, Feature } from '../context'
import type { AnyDatabase } from '../db/engine'
import { errorFields, log } from '../lib/log'
import type { VerbSet } from '../lib/verb'
import { createSender } from './outbox'
import { emailRoutes } from './routes'
import { sendVerbs } from './send-verbs'
import { smtpTransport } from './smtp'
import { emailStore, outboxStore } from './store'
import { UnsubscribeLinks } from './unsubscribe'
import { emailVerbs } from './verbs'
import { triggerVerbs } from './trigger-verbs'
import { subscribeTriggers, TriggerTable } from './triggers'
import { triggerStore } from './store/triggers'

export function emailFeature(ctx: AppContext): Feature {
  const database = ctx.database as AnyDatabase
  const store = emailStore(database)
  const outbox = outboxStore(database)
  const smtpUrl = ctx.config.smtpUrl
  // The URL was checked with the rest of the configuration (config.ts), so this does not throw here.
  const transport = smtpUrl ? smtpTransport(smtpUrl) : null
  const links = new UnsubscribeLinks(ctx.config.secret, ctx.config.publicUrl)
  const sender = createSender({ outbox, jobs: ctx.jobs, settings: ctx.settings, transport, smtpHost: smtpUrl ? new URL(smtpUrl).hostname : null, links })
  const verbs = emailVerbs({ store, events: ctx.events })
  const triggers = triggerVerbs({ store: triggerStore(database), events: ctx.events })
  const table = new TriggerTable(triggerStore(database))
  // Landings (a later issue) will pass leadEmailOf: the email of the click's lead; until then email= only.
  subscribeTriggers({ events: ctx.events, jobs: ctx.jobs, table, enroll: verbs.enroll })
  const sending = sendVerbs({ lists: store, outbox, sender, links })
  const named: VerbSet = {}
  for (const v of [...Object.values(verbs.lists), ...Object.values(verbs.subscribers), ...Object.values(triggers), sending.broadcast, sending.outbox, sending.unsubscribe]) {
    named[v.name] = v as never
  }
  return {
    name: 'email',
    routes: emailRoutes(ctx, verbs, sending, triggers),
    verbs: named,
    async start() {
      // Begun in the server's synchronous start pass, before any request (a postback waits for it if need be).
      const loading = table.reload()
      // Messages written while no relay was configured are sent now; a failure here is retried at the next start.
      await sender.releaseUnsent().catch((err) => log.error('email: queueing unsent messages failed', errorFields(err)))
      await loading
    },
    async stop() {
      transport?.close()
    },
  }
}
