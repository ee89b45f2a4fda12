// PostgreSQL text cannot hold U+0000 ("invalid byte sequence for encoding UTF8: 0x00"): one stranger's
// `?sub1=%00` would fail the whole batch of clicks or postbacks it rides in. Values a visitor or an
// advertiser sends are stored with U+FFFD in its place, the same on both engines.
export function withoutNul(s: string): string {
  return s.indexOf('\0') === -1 ? s : s.replaceAll('\0', '\uFFFD')
}
