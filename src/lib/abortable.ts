/**
 * Settles with `work`, or rejects with the signal's reason as soon as it aborts: a callee that ignores
 * its signal still cannot hold the caller beyond its deadline.
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(
      (v) => { signal.removeEventListener('abort', onAbort); resolve(v) },
      (e) => { signal.removeEventListener('abort', onAbort); reject(e) },
    )
  })
}

/**
 * A signal that aborts with a TimeoutError after `ms`, as AbortSignal.timeout does, but whose timer is
 * cleared once the work is done. AbortSignal.timeout's timer keeps its signal, and whatever listens to it,
 * alive for the whole `ms` after the work ended: at thousands of forward jobs a second that was tens of
 * thousands of live signals, moved to old space by young collections (docs/performance.md, session 7).
 */
export function deadline(ms: number): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')), ms)
  return { signal: controller.signal, clear: () => clearTimeout(timer) }
}
