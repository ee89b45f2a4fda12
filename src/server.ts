// Composes one svc server: database, migrations, shared services, feature routes, background work.
import { Elysia } from 'elysia'
import type { Config } from './config'
import type { AppContext, Feature } from './context'
import { openDatabase } from './db/client'
import { migrate } from './db/migrate'
import { openPg } from './db/pg/client'
import { migratePg } from './db/pg/migrate'
import { shareEvents, type InstanceEvents } from './db/pg/instance-events'
import type { AnyDatabase } from './db/engine'
import { SecretBox } from './lib/crypto'
import { EventBus } from './lib/event-bus'
import { createSettingsStore } from './settings/create-store'
import { createJobLoop } from './jobs/loop'
import { SessionSigner } from './auth'
import { UserStore } from './users/store'
import { errorHandler } from './http/errors'
import { accessLogPlugin, loggedNativeRoutes } from './http/access-log'
import { log, setLogFormat } from './lib/log'
import { BODY_HARD_CAP, bodyLimit } from './http/body-limit'
import { securityHeaders } from './http/security-headers'
import { VERSION } from './version'
import { invoke, systemActor, type Verb } from './lib/verb'
import { catalogFeature } from './catalog'
import { trackingFeature } from './tracking'
import type { ClickStore } from './tracking/store/click-store'
import { postbackFeature } from './postback'
import { adminFeature } from './admin'
import { reportsFeature } from './reports'
import { jobsFeature } from './jobs'
import { settingsFeature } from './settings'
import { usersFeature } from './users'
import { usersVerbs } from './users/verbs'
import { emailFeature, type EmailFeature } from './email'
import { landingsFeature } from './landings'
import { commerceFeature } from './commerce'
import { costsFeature } from './costs'
import { templatesFeature } from './templates'
import { zonesFeature } from './zones'
import { AgentGate } from './agent/gate'
import { agentFeature } from './agent'
import { dashboardFeature } from './dashboard'
import { optimisationFeature } from './optimisation'
import { agentStore } from './agent/store'
import { loadGeoIp, type GeoIp } from './lib/geoip'

export { MAX_BODY_BYTES } from './http/body-limit'

export interface SvcServer {
  app: Elysia
  ctx: AppContext
  /** Every verb of every feature, by name. */
  verbs: ReadonlyMap<string, Verb>
  /** The click store (seeds and imports bring clicks in through its import()). */
  clicks: ClickStore
  /** The IP data clicks are enriched with (its `info` says where it came from). */
  geo: GeoIp
  listen(): Promise<{ port: number; hostname: string }>
  /** Graceful: stop accepting, finish in-flight work (click commits, job attempts), close the database. */
  stop(): Promise<void>
}

/** The engine the config names, migrated to the newest schema (SQLite file, or SVC_DATABASE_URL). */
export async function openStorage(config: Readonly<Config>): Promise<AnyDatabase> {
  if (config.databaseUrl) {
    const database = await openPg(config.databaseUrl)
    try {
      await migratePg(database)
    } catch (err) {
      await database.close().catch(() => {})
      throw err
    }
    return database
  }
  const database = await openDatabase(config.dbPath)
  migrate(database)
  return database
}

/** Opens and migrates the database and creates the owner from SVC_ADMIN_EMAIL/SVC_ADMIN_PASSWORD if none exists. */
export async function createContext(config: Readonly<Config>): Promise<AppContext> {
  setLogFormat(config.logFormat)
  const database = await openStorage(config)
  const box = new SecretBox(config.secret)
  const ctx: AppContext = {
    config,
    database,
    box,
    events: new EventBus(),
    settings: await createSettingsStore(database, box),
    jobs: createJobLoop(database, config.jobs),
    sessions: new SessionSigner(config.secret, config.sessionTtlSeconds),
    users: new UserStore(database),
    agents: new AgentGate(agentStore(database)),
  }
  if ((await ctx.users.count()) === 0) {
    if (config.adminEmail && config.adminPassword) {
      await invoke(usersVerbs(ctx.users).create, systemActor('start-up'), { email: config.adminEmail, password: config.adminPassword, is_owner: true })
      log.info('created owner', { email: config.adminEmail })
    } else {
      // A notice on stdout, not a warning: a fresh install is expected to have no user yet.
      log.info(
        'no admin user yet: set SVC_ADMIN_EMAIL and SVC_ADMIN_PASSWORD and restart, ' +
          'or run `svc user add --email you@example.com --owner` (it asks for the password)',
      )
    }
  }
  return ctx
}

export async function createServer(config: Readonly<Config>): Promise<SvcServer> {
  // Before the database opens: a missing or bad IP data file (GeoIpError, naming it) stops the start with
  // nothing to close. The embedded tables are read once per process (lib/geoip).
  const geo = await loadGeoIp({ dir: config.geoip.dir ?? undefined, city: config.geoip.city.length > 0 ? config.geoip.city : undefined })
  const ctx = await createContext(config)
  const catalog = catalogFeature(ctx)
  const tracking = trackingFeature(ctx, { routes: catalog.store, geo })
  const postback = postbackFeature(ctx, tracking.findClickRow, tracking.clicks)
  await postback.ready
  const landings = landingsFeature(ctx, { catalog: catalog.store, tracker: tracking.tracker })
  // Commerce and email need each other (a buyer's account pages; resending a post-purchase sequence): bound late.
  let email: EmailFeature | null = null
  const commerce = commerceFeature(ctx, {
    recorder: postback.recorder, types: postback.types,
    restartAutomations: (listId, address) => email!.restartAutomations(listId, address),
  })
  email = emailFeature(ctx, { leadEmailOf: landings.leadEmailOf, customer: commerce.customer })
  const features: Feature[] = [
    catalog,
    templatesFeature(ctx, { createSource: catalog.verbs!['catalog.sources.create']!, createOffer: catalog.verbs!['catalog.offers.create']! }),
    tracking,
    postback,
    jobsFeature(ctx),
    adminFeature(ctx),
    usersFeature(ctx),
    settingsFeature(ctx),
    reportsFeature(ctx, { settle: () => tracking.clicks.settle() }),
    optimisationFeature(ctx),
    email,
    landings,
    commerce,
    costsFeature(ctx, { clicks: () => tracking.clicks.costs() }),
    zonesFeature(ctx),
  ]
  // Last: every verb above (and its own) becomes an agent tool once the map below is built.
  features.push(agentFeature(ctx, { verbs: () => verbs }), dashboardFeature())

  // Not precompiled: Elysia compiles a route on its first request (a few milliseconds, once). Compiling
  // all of them before listen kept every admin route's generated handler in the heap from the start, 6 MB
  // of a 21 MB idle heap, and the collector sizes its cycles from the live heap (docs/performance.md,
  // session 6). /c, /r and /postback are Bun routes and never pass through Elysia's compiler.
  // Elysia hands `serve.routes` to Bun.serve next to its own routes; these win for the same path.
  const nativeRoutes = Object.assign({}, ...features.map((f) => f.nativeRoutes ?? {}))
  // The access log is wired in only when asked for: off, no request pays for it.
  const logged = config.logRequests ? loggedNativeRoutes(nativeRoutes, config.trustProxy) : nativeRoutes
  const routes = Object.assign({}, logged, ...features.map((f) => f.pages ?? {}))
  const root = new Elysia({ serve: { maxRequestBodySize: BODY_HARD_CAP, development: false, routes } })
    .use(errorHandler)
    .use(securityHeaders)
    .use(bodyLimit)
  if (config.logRequests) root.use(accessLogPlugin(config.trustProxy)) // use() adds to root itself
  let app = root.get('/healthz', () => ({ ok: true, version: VERSION }))
  for (const f of features) app = app.use(f.routes) as never

  const verbs = new Map<string, Verb>()
  for (const f of features) {
    for (const v of Object.values(f.verbs ?? {})) {
      if (verbs.has(v.name)) throw new Error(`verb ${v.name} is defined twice`)
      verbs.set(v.name, v)
    }
  }

  // Postgres: the other instances hear of catalog, settings and conversion-type changes (and this one of theirs).
  let instances: InstanceEvents | null = null
  const shared = async () => {
    if (ctx.database.engine !== 'postgres') return
    instances = await shareEvents(ctx.database, ctx.events, { reloads: { 'settings.changed': () => ctx.settings.reload() } })
  }

  let stopped = false
  return {
    app: app as unknown as Elysia,
    ctx,
    verbs,
    clicks: tracking.clicks,
    geo,
    async listen() {
      await shared() // Postgres: hear other instances' changes from the first request on
      app.listen({ port: config.port, hostname: config.host, reusePort: false })
      // Started in one synchronous pass, so no request runs before each feature began its start (the
      // Postgres routing table loads asynchronously; requests wait for it), then awaited.
      await Promise.all(features.map((f) => f.start?.()))
      ctx.jobs.start()
      return { port: app.server!.port!, hostname: app.server!.hostname! }
    },
    async stop() {
      if (stopped) return
      stopped = true
      // Stop accepting first, then let features drain (the click writer commits what it holds).
      await app.stop(false).catch(() => {})
      for (const f of features) await f.stop?.()
      await ctx.jobs.stop()
      await instances?.stop()
      await ctx.database.close()
    },
  }
}
