import type { AnyElysia } from 'elysia'
import type { BunRequest, HTMLBundle, Server } from 'bun'
import type { Config } from './config'
import type { AnyDatabase } from './db/engine'
import type { SecretBox } from './lib/crypto'
import type { EventBus } from './lib/event-bus'
import type { SettingsStore } from './settings/store'
import type { JobQueue } from './jobs/types'
import type { SessionSigner } from './auth'
import type { UserStore } from './users/store'
import type { VerbSet } from './lib/verb'
import type { AgentGate } from './agent/gate'

// The interfaces of what AppContext hands every feature, for features that take one of them alone (a feature
// imports another only through its index.ts or here: docs/architecture.md, "Layers").
export type { SettingsStore } from './settings/store'
export type { EnqueueOptions, JobHandler, JobKindPolicy, JobQueue } from './jobs/types'
export type { SessionSigner } from './auth'

/** Everything a feature needs, built once per server in src/server.ts (tests build one per test server). */
export interface AppContext {
  config: Readonly<Config>
  database: AnyDatabase
  box: SecretBox
  events: EventBus
  settings: SettingsStore
  jobs: JobQueue
  sessions: SessionSigner
  users: UserStore
  /** Agent tokens (svc_ap_…): bearer auth and rate buckets for /mcp and /admin/api. */
  agents: AgentGate
}

/** Bun.serve routes answered without Elysia (path pattern → method → handler). */
export type NativeRoutes = Record<string, Partial<Record<'GET' | 'HEAD' | 'OPTIONS', (request: BunRequest<string>, server: Server<unknown>) => Response | Promise<Response>>>>

/** A capability plugged into the server: its routes, plus optional start/stop for background work. */
export interface Feature {
  name: string
  routes: AnyElysia
  /** Hot-path routes served by Bun directly (see tracking/routes.ts for why). */
  nativeRoutes?: NativeRoutes
  /** HTML pages Bun bundles and serves itself (HTML imports), by path. */
  pages?: Record<string, HTMLBundle>
  /** The feature's verbs: every surface (REST, MCP, CLI, dashboard) calls these through invoke(). */
  verbs?: VerbSet
  /** Background work, and what must be ready before the first request (awaited before listen). */
  start?(): void | Promise<void>
  /** Finish in-flight work; called on SIGTERM before the database closes. */
  stop?(): Promise<void>
}
