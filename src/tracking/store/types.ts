// The click store's boundary: what the tracker, the admin verb, retention and the seeds use, whichever
// engine is behind it. SQLite (click-store.ts) answers lookups synchronously, which keeps the redirect's
// /r path free of awaits; Postgres (pg-click-store.ts) answers them with Promises. Callers await a lookup only when
// they got a Promise (`if (r instanceof Promise) r = await r`), so SQLite's path stays as it was.
import type { Click, ContinuableClick, StoredClick } from './click'
import type { ClickAmend } from './commit'
import type { ClickCosts } from './reprice'

export type { ClickAmend }
export type { ClickCosts, CostScope } from './reprice'

/** The store refuses the click (stopped, or too many waiting for a commit): the visitor gets 503. */
export class WriterUnavailable extends Error {}

export type MaybePromise<T> = T | Promise<T>

/** A unique click of the last window, for rebuilding the unique-visitor windows at start. */
export interface UniqueClick {
  campaignId: number
  ip: string | null
  userAgent: string | null
  createdAt: number
}

/** Which clicks an export reads: created in [from, to), of one campaign when campaignId is set. */
export interface ClickRange {
  from: number
  to: number
  campaignId?: number
}

export interface ClickStore {
  /** Resolves once the click is committed (group commit: one transaction per event-loop turn); rejects when it was not (→ 503). */
  append(click: Click): Promise<void>
  /** Moves a stored click (row id) to another offer/landing, rollups following; committed with the current batch. */
  repoint(row: number, offerId: number, landingId: number | null): Promise<void>
  /** Changes a stored click (landing view, click-through, bot flag, landing), rollups following; committed with the current batch. */
  amend(a: ClickAmend): Promise<void>
  /** Commits clicks now (seeds, imports), rollups included, emits click.committed; their row ids in order. */
  import(clicks: readonly Click[]): MaybePromise<number[]>
  /**
   * Counts every committed click into the targeting rollups (country, path) before a report reads them:
   * SQLite folds them a moment after their commit (targeting-fold.ts); Postgres writes them with the click.
   */
  settle(): void
  /**
   * A new click's id (a UUID v4) when the engine wants its own (Postgres: the last 16 bits name the day of
   * `createdAt`, so a lookup probes one day's partition); absent: crypto.randomUUID().
   */
  newClickId?(createdAt: number): string
  /** Row id of a committed click; `clickId` must be a lower-case UUID. */
  rowOf(clickId: string): MaybePromise<number | undefined>
  /** What continuing a click needs (attribution, subs, row). */
  find(clickId: string): MaybePromise<ContinuableClick | undefined>
  /** The whole stored click, flags as booleans. */
  record(clickId: string): MaybePromise<StoredClick | undefined>
  /** Deletes up to `limit` clicks created before `cutoff`, oldest first; resolves with how many went. Rollups stay. */
  prune(cutoff: number, limit: number): Promise<number>
  /** Unique clicks created since `since`, oldest first. */
  recentUniques(since: number): MaybePromise<UniqueClick[]>
  /** Up to `limit` whole clicks of the range after (createdAt, row), ordered by created_at then row: one page of an export. */
  clicksAfter(range: ClickRange, createdAt: number, row: number, limit: number): MaybePromise<StoredClick[]>
  /**
   * Cost updates (docs/costs.md): count and replace the cost of a campaign's clicks in a time range, every
   * rollup holding cost moved exactly, in one transaction per replace (SQLite: on the writer's connection).
   */
  costs(): ClickCosts
  /** Background work of the engine (SQLite: index buckets, WAL checkpoints; Postgres: none). */
  start(): void
  /** Commits what is pending (graceful shutdown), then refuses new clicks (WriterUnavailable). */
  stop(): Promise<void>
}
