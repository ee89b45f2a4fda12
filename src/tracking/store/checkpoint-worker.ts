// Worker thread of the checkpointer (checkpointer.ts): its own connection copies the WAL back into the
// database file, so the redirect's thread never does a checkpoint's writes and fsyncs itself.
import { Database } from 'bun:sqlite'

declare const self: Worker

type Message = { path: string; everyMs: number } | 'stop'

let stop = () => {}

self.onmessage = (e: MessageEvent<Message>) => {
  if (e.data === 'stop') return stop()
  const { path, everyMs } = e.data
  const db = new Database(path, { readwrite: true, create: false })
  // PASSIVE never waits for a lock: a checkpoint that meets the writer copies what it can and the next tick continues.
  db.run('PRAGMA busy_timeout = 0')
  // This connection writes nothing, so it never checkpoints on its own; explicit checkpoints only.
  db.run('PRAGMA wal_autocheckpoint = 0')
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)')
  const tick = () => {
    try {
      // A pass copies the frames the WAL had when it began; commits keep coming meanwhile. Again at once
      // until a pass finds no new frame (each pass is shorter than the one before): then every frame is
      // in the database file and the writer's next transaction starts the WAL over from its beginning,
      // which keeps the file small. Stopping at a bounded number of passes leaves it to the next tick.
      let seen = -1
      for (let pass = 0; pass < 8; pass++) {
        const r = checkpoint.get() as { busy: number; log: number; checkpointed: number }
        if (r.busy || r.log <= 0 || (r.log === seen && r.checkpointed >= r.log)) break
        seen = r.log
      }
    } catch {
      // The database is closing or busy: the next tick tries again; the writers' autocheckpoint is the backstop.
    }
  }
  const timer = setInterval(tick, everyMs)
  // Closed here, not by terminate(): a connection dropped with its thread would keep its file locks.
  stop = () => {
    clearInterval(timer)
    checkpoint.finalize()
    db.close()
    postMessage('stopped')
  }
}
