// normalizeEmail: one spelling per mailbox, and nothing that could smuggle a header or that a relay refuses.
import { describe, expect, test } from 'bun:test'
import { normalizeEmail } from '../../src/lib/email-address'

describe('normalizeEmail', () => {
  test.each([
    ['ann@example.com', 'ann@example.com'],
    ['  Ann.Lee@Example.COM  ', 'ann.lee@example.com'],
    ['first+tag@sub.example.co.uk', 'first+tag@sub.example.co.uk'],
    ["o'brien@example.ie", "o'brien@example.ie"],
    ['x@example.com.', 'x@example.com'],
    ['ann@example.com\n', 'ann@example.com'], // surrounding whitespace is trimmed; inside, it is refused
    ['user@xn--mnchen-3ya.de', 'user@xn--mnchen-3ya.de'],
    ['user@münchen.de', 'user@münchen.de'],
    ['a_b-c@my-host.example', 'a_b-c@my-host.example'],
  ])('%p → %p', (input, out) => {
    expect(normalizeEmail(input)).toBe(out)
  })

  test.each([
    '', ' ', 'plain', '@example.com', 'ann@', 'ann@example', 'ann@@example.com', 'ann@exa mple.com', 'ann lee@example.com',
    '.ann@example.com', 'ann.@example.com', 'an..n@example.com', 'ann@-example.com', 'ann@example-.com', 'ann@example..com',
    'ann@127.0.0.1', 'ann@[127.0.0.1]', '"ann lee"@example.com', 'Ann <ann@example.com>', 'ann@example.com, bob@example.com',
    'ann@example.com\r\nBcc: x@example.com', 'ann\u0000@example.com', `${'a'.repeat(65)}@example.com`,
    `ann@${'a'.repeat(64)}.com`, `ann@${'abcdefghij.'.repeat(23)}com`,
  ])('refuses %p', (input) => {
    expect(normalizeEmail(input)).toBeNull()
  })
})
