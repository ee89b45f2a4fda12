// Operator-facing log lines. One line per event: `time level message key=value …` by default (for people
// and journald), or one JSON object per line with SVC_LOG_FORMAT=json (for log shippers).
//
// Writes go through console.log / console.error on purpose: in Bun they block until written, so the last
// lines before process.exit are never lost (process.stdout.write buffers and drops them). info goes to
// stdout, warn and error to stderr. Callers pass only what is safe to keep: never a secret, a cookie,
// a query string or a full URL (a URL's host is fine).

export type LogFormat = 'text' | 'json'
export type LogLevel = 'info' | 'warn' | 'error'
export type LogValue = string | number | boolean | null | undefined
/** Never named time, level or msg: those keys belong to the line itself. */
export type LogFields = Record<string, LogValue>

const MAX_FRAMES = 8

let format: LogFormat = 'text'

/** Set once from the config (createContext); the log is process-wide, like stdout itself. */
export function setLogFormat(f: LogFormat): void {
  format = f
}

/** `error` (the message) and `stack` (compacted frames, one line) of an unexpected failure. */
export function errorFields(err: unknown): LogFields {
  if (!(err instanceof Error)) return { error: String(err) }
  const frames = (err.stack ?? '')
    .split('\n')
    .slice(1)
    .map((l) => l.trim().replace(/^at /, ''))
    .filter((l) => l !== '')
    .slice(0, MAX_FRAMES)
  return { error: err.message || err.name, stack: frames.length ? frames.join(' | ') : undefined }
}

/** Bare when the value cannot be misread, JSON-quoted otherwise (escapes newlines: a value never breaks the line). */
function textValue(v: Exclude<LogValue, undefined>): string {
  const s = String(v)
  return s !== '' && /^[\w.:/@\-+,\[\]]+$/.test(s) ? s : JSON.stringify(s)
}

function line(level: LogLevel, msg: string, fields: LogFields | undefined): string {
  const time = new Date().toISOString()
  if (format === 'json') {
    const o: Record<string, unknown> = { time, level, msg }
    if (fields) for (const k in fields) if (fields[k] !== undefined && !(k in o)) o[k] = fields[k]
    return JSON.stringify(o)
  }
  let out = `${time} ${level.toUpperCase().padEnd(5)} ${msg}`
  if (fields) {
    for (const k in fields) {
      const v = fields[k]
      if (v !== undefined) out += ` ${k}=${textValue(v)}`
    }
  }
  return out
}

export const log = {
  info(msg: string, fields?: LogFields): void {
    console.log(line('info', msg, fields))
  },
  warn(msg: string, fields?: LogFields): void {
    console.error(line('warn', msg, fields))
  },
  error(msg: string, fields?: LogFields): void {
    console.error(line('error', msg, fields))
  },
}
