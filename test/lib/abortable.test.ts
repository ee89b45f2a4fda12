// lib/abortable.ts: a deadline whose timer goes away with the work, and work bounded by a signal.
import { describe, expect, test } from 'bun:test'
import { abortable, deadline } from '../../src/lib/abortable'

describe('deadline', () => {
  test('aborts after its time with a TimeoutError, as AbortSignal.timeout does', async () => {
    const { signal } = deadline(30)
    expect(signal.aborted).toBe(false)
    await Bun.sleep(80)
    expect(signal.aborted).toBe(true)
    expect((signal.reason as DOMException).name).toBe('TimeoutError')
  })

  test('cleared, it never aborts: nothing of it outlives the work', async () => {
    const { signal, clear } = deadline(30)
    clear()
    await Bun.sleep(80)
    expect(signal.aborted).toBe(false)
  })

  test('abortable() rejects with the deadline reason when the work outlives it, and settles with the work otherwise', async () => {
    const slow = deadline(30)
    const never = new Promise<string>(() => {})
    await expect(abortable(never, slow.signal)).rejects.toMatchObject({ name: 'TimeoutError' })
    const fast = deadline(1000)
    expect(await abortable(Promise.resolve('done'), fast.signal)).toBe('done')
    fast.clear()
  })
})
