// One server per data directory. Each process keeps state the database does not have yet (clicks not
// indexed, routing cache), so a second server on the same files answers OK to postbacks it cannot match.
//
// The lock is SQLite's own file lock on DATA_DIR/svc.lock, a tiny database held by one connection in
// EXCLUSIVE locking mode after a write. SQLite takes POSIX record locks (fcntl), which the kernel drops
// when the process ends, even on SIGKILL or a power cut, so a crash never leaves a stale lock behind and
// no pid guessing is needed. It also excludes a second connection in the same process. The holder's pid
// is written into the file header's user_version (offset 60, big-endian, SQLite file format §1.3), which
// a refused process reads as plain bytes (record locks are advisory) to name the running server.
//
// svc.db itself is not locked this way: backup and the user commands open it while a server runs.
import { Database } from 'bun:sqlite'
import { closeSync, openSync, readSync, chmodSync } from 'node:fs'
import { join } from 'node:path'

export class DataDirBusy extends Error {
  constructor(readonly dataDir: string, readonly pid: number | null) {
    const who = pid ? `another svc process (pid ${pid})` : 'another svc process'
    super(`data directory ${dataDir} is in use by ${who}; stop it first, or use another SVC_DATA_DIR`)
  }
}

export interface DataDirLock {
  release(): void
}

/** The pid in the lock file's header, or null while unknown (file just created, not yet written). */
function holderPid(file: string): number | null {
  try {
    const fd = openSync(file, 'r')
    try {
      const buf = Buffer.alloc(4)
      const n = readSync(fd, buf, 0, 4, 60)
      const pid = n === 4 ? buf.readUInt32BE(0) : 0
      return pid > 0 ? pid : null
    } finally {
      closeSync(fd)
    }
  } catch {
    return null
  }
}

const isBusy = (err: unknown) => /SQLITE_BUSY|SQLITE_LOCKED/.test(String((err as { code?: string }).code))

/** Takes the data directory's lock or throws DataDirBusy naming the holder. Never waits. */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = join(dataDir, 'svc.lock')
  closeSync(openSync(file, 'a', 0o600))
  chmodSync(file, 0o600)
  const db = new Database(file)
  try {
    db.run('PRAGMA busy_timeout = 0')
    db.run('PRAGMA locking_mode = EXCLUSIVE') // kept after the first write, until close
    db.run('PRAGMA journal_mode = MEMORY') // no svc.lock-journal beside it
    db.run(`PRAGMA user_version = ${process.pid | 0}`)
  } catch (err) {
    db.close()
    if (isBusy(err)) throw new DataDirBusy(dataDir, holderPid(file))
    throw err
  }
  let held = true
  const release = () => {
    if (!held) return
    held = false
    process.off('exit', release)
    db.close()
  }
  // A listener keeps the connection reachable: a collected connection would close and drop the lock.
  process.once('exit', release)
  return { release }
}
