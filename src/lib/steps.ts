// One body of rules, two engines. A body that checks and writes (the postback recording path, an admin
// store's check-then-write, see db/store-db.ts) is written once as a generator
// that `yield`s the result of each store call: a plain value on SQLite, a Promise on Postgres. A driver
// feeds each result back in: runSync on SQLite (no await anywhere, so the batch stays one synchronous
// transaction), runAsync on Postgres.
//
// Each yield is written `const x: T = yield store.call()`, annotated by hand, rather than through a typed
// `yield* step(v)` helper: that helper would allocate a second generator per store call on the SQLite hot
// path. The generator object is the only allocation the technique adds.

export type MaybeAsync<T> = T | Promise<T>

/** A recording-path body: yields store results (values or Promises) and returns its outcome. */
// biome-ignore lint: the sent-back value is typed at each yield site (see above).
export type Steps<R> = Generator<unknown, R, any>

/** Runs a body whose store calls are synchronous (SQLite). A Promise yielded here is a wiring bug. */
export function runSync<R>(g: Steps<R>): R {
  let r = g.next()
  while (!r.done) {
    if (r.value instanceof Promise) throw new Error('runSync: an asynchronous store call on the synchronous path')
    r = g.next(r.value)
  }
  return r.value
}

/**
 * Runs a body whose store calls return Promises (Postgres): each is awaited, one after another. `first`: what
 * the body's first next() gave, when the caller already started it (the Postgres postback batch does).
 */
export async function runAsync<R>(g: Steps<R>, first?: IteratorResult<unknown, R>): Promise<R> {
  let r = first ?? g.next()
  while (!r.done) {
    let value: unknown
    try {
      value = await r.value
    } catch (err) {
      // Thrown back at the yield, so the error surfaces where the store call was made.
      r = g.throw(err)
      continue
    }
    r = g.next(value)
  }
  return r.value
}
