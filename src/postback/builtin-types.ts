// The built-in conversion types (spec §2), in their documented order: reports list their columns in this
// order, before the operator's own types. The migration drizzle/0001_defaults.sql seeds the same rows
// (SQL cannot import this list; test/core/cli.test.ts and test/postback/admin.test.ts check the seeded slugs).
export const BUILTIN_TYPES = ['sale', 'lead', 'trial', 'install', 'reject', 'chargeback'] as const
export type BuiltinType = (typeof BUILTIN_TYPES)[number]

/** Used when a status is neither mapped nor a type slug (and when none is sent). */
export const FALLBACK_TYPE: BuiltinType = 'sale'

/** Spec §2: reject and chargeback never forward a postback (neither does any other negative type). */
export const NEVER_FORWARDED: ReadonlySet<string> = new Set<BuiltinType>(['reject', 'chargeback'])
