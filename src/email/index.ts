// The email feature (issue 9; section email): lists and subscribers, conversion triggers, automations, the
// outbox and delivery through the operator's SMTP relay, unsubscribe links, and magic-link customer
// accounts. Bounce webhooks build on the same suppression.
import { Elysia } from 'elysia'
import type { AppContext, Feature } from '../context'
import { CustomerAccounts } from './account'
import { accountRoutes, type CustomerCommerce } from './account-routes'
import { customerStore } from './store/customers'
import { bounceRoutes, mailEventsVerb, registerSnsConfirm } from './bounce-routes'
import { mailEventStore } from './store/mail-events'
import type { AnyDatabase } from '../db/engine'
import { errorFields, log } from '../lib/log'
import { invoke, systemActor, type VerbSet } from '../lib/verb'
import { automationVerbs } from './automation-verbs'
import { AutomationTable, registerAutomationSteps, scheduleAutomations, subscriberRef } from './automations'
import { createSender } from './outbox'
import { emailRoutes } from './routes'
import { sendVerbs } from './send-verbs'
import { smtpTransport } from './smtp'
import { emailStore, outboxStore } from './store'
import { automationStore } from './store/automations'
import { triggerStore } from './store/triggers'
import { triggerVerbs } from './trigger-verbs'
import { subscribeTriggers, TriggerTable } from './triggers'
import { UnsubscribeLinks } from './unsubscribe'
import { emailVerbs } from './verbs'

export interface EmailFeature extends Feature {
  /** Restarts the list's automations for the subscriber with this address (commerce: resend a post-purchase sequence). */
  restartAutomations(listId: number, email: string): Promise<unknown>
}

export function emailFeature(ctx: AppContext, deps: { leadEmailOf?: (clickId: string) => Promise<string | null>; customer?: CustomerCommerce } = {}): EmailFeature {
  const database = ctx.database as AnyDatabase
  const store = emailStore(database)
  const outbox = outboxStore(database)
  const smtpUrl = ctx.config.smtpUrl
  // The URL was checked with the rest of the configuration (config.ts), so this does not throw here.
  const transport = smtpUrl ? smtpTransport(smtpUrl) : null
  const links = new UnsubscribeLinks(ctx.config.secret, ctx.config.publicUrl)
  const sender = createSender({
    outbox, jobs: ctx.jobs, settings: ctx.settings, transport, smtpHost: smtpUrl ? new URL(smtpUrl).hostname : null, links,
    defaultFrom: ctx.config.emailFrom?.mailbox ?? null, events: ctx.events,
  })
  const cancelPending = (subscriberId: number) => ctx.jobs.cancelRef(subscriberRef(subscriberId))

  const automations = automationStore(database)
  const automationTable = new AutomationTable(automations)
  ctx.events.on('email-automations.changed', 'after-commit', 'email.automations-cache', () => {
    void automationTable.reload()
  })
  registerAutomationSteps({ jobs: ctx.jobs, automations, lists: store, sender, links })

  const verbs = emailVerbs({ store, events: ctx.events, onEnrolled: scheduleAutomations(automationTable, ctx.jobs), cancelPending })
  const triggers = triggerVerbs({ store: triggerStore(database), events: ctx.events })
  const triggerTable = new TriggerTable(triggerStore(database))
  // leadEmailOf (the landings feature): postback rule 6, the buyer's address from the click's lead.
  subscribeTriggers({ events: ctx.events, jobs: ctx.jobs, table: triggerTable, enroll: verbs.enroll, leadEmailOf: deps.leadEmailOf })
  const sending = sendVerbs({ lists: store, outbox, sender, links, cancelPending })
  const automationSet = automationVerbs({ store: automations, events: ctx.events })
  registerSnsConfirm(ctx.jobs, ctx.config.outboundAllowPrivate)
  const mailEvents = mailEventStore(database)
  const mailEventsList = mailEventsVerb(mailEvents)
  const customers = customerStore(database)
  const customer = deps.customer
  const accounts = new CustomerAccounts({
    store: customers, outbox, sender, settings: ctx.settings, secret: ctx.config.secret, publicUrl: ctx.config.publicUrl, jobs: ctx.jobs,
    isBuyer: customer ? async (email) => (await customer.orders(email)).length > 0 : undefined,
  })

  const named: VerbSet = {}
  for (const v of [
    ...Object.values(verbs.lists), ...Object.values(verbs.subscribers), ...Object.values(triggers), ...Object.values(automationSet),
    sending.broadcast, sending.outbox, sending.unsubscribe, verbs.purchase, mailEventsList,
  ]) named[v.name] = v as never

  return {
    restartAutomations: (listId, email) => invoke(verbs.subscribers.restartByEmail, systemActor('commerce'), { id: listId, email }),
    name: 'email',
    routes: new Elysia({ name: 'email-feature' })
      .use(emailRoutes(ctx, { verbs, sending, triggers, automations: automationSet }))
      .use(accountRoutes(ctx, accounts, deps.customer))
      .use(bounceRoutes(ctx, { store: mailEvents, list: mailEventsList, cancelPending })),
    verbs: named,
    async start() {
      // Begun in the server's synchronous start pass, before any request (a postback or an enrolment waits
      // for its table if need be).
      const loading = Promise.all([triggerTable.reload(), automationTable.reload()])
      // Messages written while no relay (or no From) was configured are sent now; a failure here is retried at the next start.
      await sender.releaseUnsent().catch((err) => log.error('email: queueing unsent messages failed', errorFields(err)))
      // Sign-in links that expired a day ago or more: the "expired" page no longer needs them.
      await customers.pruneTokens(Date.now() - 24 * 3600_000).catch((err) => log.error('email: pruning sign-in links failed', errorFields(err)))
      await loading
    },
    async stop() {
      transport?.close()
    },
  }
}
