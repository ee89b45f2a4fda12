// Duplicate member names in JSON text. JSON.parse keeps the last of two equal keys in one object; another
// reader (a provider's verification service) may keep the first, so a body that repeats a key can mean one
// thing to the verifier and another to us. A scanner over the raw text (no recursion, so any depth is fine;
// strings decoded before they are compared, so "a" and "\u0061" are the same key).

interface Frame {
  /** Null: an array. */
  keys: Set<string> | null
  /** In an object: the next string is a member name (after `{` or `,`). */
  expectKey: boolean
}

/**
 * The first member name that occurs twice in one object of `text`, or null when there is none. Text that is
 * not JSON gives null or a best-effort answer: the caller's parser decides about validity.
 */
export function duplicateKey(text: string): string | null {
  const stack: Frame[] = []
  let top: Frame | undefined
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22 /* " */) {
      const start = i
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i)
        if (d === 0x5c /* \ */) i++
        else if (d === 0x22) break
      }
      if (i >= n) return null // unterminated: not JSON
      if (top?.keys && top.expectKey) {
        let key: string
        try {
          key = JSON.parse(text.slice(start, i + 1)) as string
        } catch {
          return null // a bad escape: not JSON
        }
        if (top.keys.has(key)) return key
        top.keys.add(key)
        top.expectKey = false
      }
    } else if (c === 0x7b /* { */) {
      top = { keys: new Set(), expectKey: true }
      stack.push(top)
    } else if (c === 0x5b /* [ */) {
      top = { keys: null, expectKey: false }
      stack.push(top)
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop()
      top = stack[stack.length - 1]
    } else if (c === 0x2c /* , */) {
      if (top?.keys) top.expectKey = true
    }
  }
  return null
}
