// `svc backup FILE`: a consistent copy of the live database.
import type { Database } from './client'

/** VACUUM INTO reads one consistent snapshot, so it is safe while a server keeps writing. */
export function backupInto(database: Database, target: string): void {
  database.raw.prepare('VACUUM INTO $target').run({ target })
}
