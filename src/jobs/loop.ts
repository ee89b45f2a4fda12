// PLACEHOLDER — replaced by the durable job loop implementation.
import type { RawDb } from '../db/client'
import type { Config } from '../config'
import type { JobHandler, JobQueue, JobRow } from './types'

export class JobLoop implements JobQueue {
  constructor(private readonly raw: RawDb, private readonly opts: Config['jobs']) {}
  register(_kind: string, _handler: JobHandler): void {}
  enqueue(_kind: string, _payload: unknown): number { return 0 }
  kick(): void {}
  list(): { items: JobRow[]; next_cursor: string | null } { return { items: [], next_cursor: null } }
  get(): JobRow | null { return null }
  start(): void {}
  async stop(): Promise<void> {}
}
