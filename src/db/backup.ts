// `svc backup FILE`: a consistent copy of the live database.
import { openSync, closeSync, rmSync } from 'node:fs'
import type { Database } from './client'

export class BackupTargetExists extends Error {}

/**
 * VACUUM INTO reads one consistent snapshot, so it is safe while a server keeps writing. The target is
 * created here first, empty (VACUUM INTO accepts an empty file), exclusively (never overwrites) and 0600:
 * a backup holds the same IPs and password hashes as the database.
 */
export function backupInto(database: Database, target: string): void {
  try {
    closeSync(openSync(target, 'wx', 0o600))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new BackupTargetExists(`${target} already exists; choose a new file name`)
    throw err
  }
  try {
    database.raw.prepare('VACUUM INTO $target').run({ target })
  } catch (err) {
    rmSync(target, { force: true }) // no half-written backup left to be mistaken for a good one
    throw err
  }
}
