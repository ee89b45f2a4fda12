/** In-process change notifications, so caches (routing, conversion types) drop stale entries at once. */
export type Topic = 'catalog' | 'conversion-types' | 'settings'

export class Signals {
  private readonly listeners = new Map<Topic, Set<() => void>>()

  on(topic: Topic, fn: () => void): void {
    let set = this.listeners.get(topic)
    if (!set) this.listeners.set(topic, (set = new Set()))
    set.add(fn)
  }

  emit(topic: Topic): void {
    for (const fn of this.listeners.get(topic) ?? []) fn()
  }
}
