// The audit log of the agent API: one row per call, denied ones included, with secret values redacted.
import { errorFields, log } from '../lib/log'
import type { AgentStore, NewAudit } from './store/types'

/** Argument names whose values never reach the log (passwords, secrets, API keys and client ids, tokens); a URL's password neither. */
const SECRET_NAME = /(secret|password|passwd|credential|api_?key|client_id|private|signing|_key$|^key$|token$)/i
/** A long value (landing html, a CSV import) is cut here: the log is for who did what, not a copy of the data. */
const MAX_VALUE = 1000
const MAX_ARGUMENTS = 16 * 1024

/** `scheme://user:password@` inside any text: the password part (up to the `@` of the authority). */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*):[^\s/?#@]*@/gi

/** A text with every URL's password replaced: `https://user:[redacted]@host/…`. */
export const redactUrlPasswords = (text: string): string => text.replace(URL_PASSWORD, '$1:[redacted]@')

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[…]'
  if (typeof value === 'string') {
    const clean = redactUrlPasswords(value)
    return clean.length > MAX_VALUE ? `${clean.slice(0, MAX_VALUE)}…[${clean.length} chars]` : clean
  }
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => redact(v, depth + 1))
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_NAME.test(k) && v !== null && v !== undefined ? '[redacted]' : redact(v, depth + 1)
    return out
  }
  return value
}

export function argumentsText(args: unknown): string | null {
  if (args === undefined) return null
  const text = JSON.stringify(redact(args))
  return text.length > MAX_ARGUMENTS ? JSON.stringify({ truncated: text.slice(0, MAX_ARGUMENTS) }) : text
}

type Entry = Omit<NewAudit, 'arguments' | 'createdAt' | 'durationMs'> & { args: unknown; startedAt: number }

export class AuditLog {
  /** Writes started after an answer was sent (REST); drain() waits for them at shutdown. */
  private readonly pending = new Set<Promise<void>>()

  constructor(private readonly store: AgentStore) {}

  /** For a call already answered: the write runs on, tracked so a graceful stop waits for it. */
  recordLater(entry: Entry): void {
    const write = this.record(entry).finally(() => this.pending.delete(write))
    this.pending.add(write)
  }

  async drain(): Promise<void> {
    await Promise.all([...this.pending])
  }

  /**
   * Awaited before the call answers, so an answered call is always in the log. A failing write is logged and
   * does not fail the call (the call's own effects are already committed).
   */
  async record(entry: Entry): Promise<void> {
    const { args, startedAt, ...rest } = entry
    const now = Date.now()
    try {
      await this.store.addAudit({ ...rest, arguments: argumentsText(args), durationMs: Math.max(0, Math.round(now - startedAt)), createdAt: now })
    } catch (err) {
      log.error('agent: audit write failed', { tool: entry.tool, ...errorFields(err) })
    }
  }
}
