// Email addresses as svc stores them: one spelling per mailbox, so a list holds an address once.
// Not a full RFC 5322 parser: it accepts the addresses people type into forms and refuses what a mail
// relay would refuse or what could smuggle a header (CR/LF, angle brackets, commas, spaces).

/** RFC 5321: 64 octets of local part, 254 of path. */
const MAX_LOCAL = 64
const MAX_TOTAL = 254
/** Dot-atom local part (RFC 5322 atext), no quoted strings. */
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/
/** A domain of two labels or more, each 1–63 letters, digits or hyphens (not at either end); IDNs as punycode or Unicode letters. */
const LABEL = /^(?!-)[\p{L}\p{N}-]{1,63}(?<!-)$/u

/**
 * The normalised address, or null when it is not one: trimmed, the domain lower-cased (domains are
 * case-insensitive), the local part kept as typed except that it is compared lower-cased too: mailbox
 * providers treat it case-insensitively in practice, and two rows for Ann@ and ann@ would mail her twice.
 */
export function normalizeEmail(input: string): string | null {
  const value = input.trim()
  if (value.length === 0 || value.length > MAX_TOTAL) return null
  const at = value.lastIndexOf('@')
  if (at <= 0 || at === value.length - 1) return null
  const local = value.slice(0, at)
  const domain = value.slice(at + 1).toLowerCase().replace(/\.$/, '')
  if (local.length > MAX_LOCAL || !LOCAL.test(local)) return null
  const labels = domain.split('.')
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null
  if (/^\d+$/.test(labels.at(-1)!)) return null // an IP address is not a mail domain here
  return `${local.toLowerCase()}@${domain}`
}
