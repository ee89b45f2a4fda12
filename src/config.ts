// The only reader of the environment. Everything else receives a frozen Config.
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { LogFormat } from './lib/log'

export interface Config {
  port: number
  host: string
  dataDir: string
  dbPath: string
  /** Master secret: signs admin cookies and derives the key that encrypts stored secrets. */
  secret: string
  adminEmail: string | null
  adminPassword: string | null
  publicUrl: string | null
  trustProxy: boolean
  sessionTtlSeconds: number
  smtpUrl: string | null
  outboundAllowPrivate: boolean
  payAApi: string | null
  payBApi: string | null
  /** Job loop tuning; env overrides exist so tests and operators can shorten retries. */
  jobs: {
    pollMs: number
    timeoutMs: number
    maxAttempts: number
    backoffBaseMs: number
    backoffMaxMs: number
    concurrency: number
  }
  /** SVC_LOG_FORMAT: `text` (default, one `key=value` line per event) or `json` (one object per line). */
  logFormat: LogFormat
  /** SVC_LOG_REQUESTS=1: one access-log line per request; nothing is done per request when off. */
  logRequests: boolean
}

export type Env = Record<string, string | undefined>

/** Flags of `svc serve` (--port, --host, --data-dir) win over the environment. */
export interface ConfigFlags {
  port?: string
  host?: string
  dataDir?: string
}

export class ConfigError extends Error {}

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`)
  const n = Number(raw)
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`)
  return n
}

function flag(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase()
  return raw === '1' || raw === 'true' || raw === 'yes'
}

function logFormat(env: Env): LogFormat {
  const raw = (env.SVC_LOG_FORMAT ?? '').trim().toLowerCase()
  if (raw === '' || raw === 'text') return 'text'
  if (raw === 'json') return 'json'
  throw new ConfigError(`SVC_LOG_FORMAT must be text or json, got "${env.SVC_LOG_FORMAT}"`)
}

function nonEmpty(v: string | undefined): string | null {
  return v === undefined || v.trim() === '' ? null : v
}

/** Reads SVC_SECRET, or generates one into DATA_DIR/secret.key (0600) on first start and reuses it. */
function loadSecret(env: Env, dataDir: string): string {
  const fromEnv = nonEmpty(env.SVC_SECRET)
  if (fromEnv) {
    if (fromEnv.length < 16) throw new ConfigError('SVC_SECRET must be at least 16 characters')
    return fromEnv
  }
  const file = join(dataDir, 'secret.key')
  if (existsSync(file)) {
    const s = readFileSync(file, 'utf8').trim()
    if (s.length >= 16) return s
    throw new ConfigError(`${file} is shorter than 16 characters; remove it or set SVC_SECRET`)
  }
  const s = randomBytes(32).toString('hex')
  writeFileSync(file, s + '\n', { mode: 0o600 })
  chmodSync(file, 0o600)
  return s
}

export function loadConfig(env: Env = process.env, flags: ConfigFlags = {}): Readonly<Config> {
  const dataDir = resolve(flags.dataDir ?? nonEmpty(env.SVC_DATA_DIR) ?? './data')
  mkdirSync(dataDir, { recursive: true })
  const port = flags.port !== undefined ? int({ p: flags.port }, 'p', 3000, 0, 65535) : int(env, 'PORT', 3000, 0, 65535)
  const cfg: Config = {
    port,
    host: flags.host ?? nonEmpty(env.HOST) ?? '0.0.0.0',
    dataDir,
    dbPath: join(dataDir, 'svc.db'),
    secret: loadSecret(env, dataDir),
    adminEmail: nonEmpty(env.SVC_ADMIN_EMAIL),
    adminPassword: nonEmpty(env.SVC_ADMIN_PASSWORD),
    publicUrl: nonEmpty(env.SVC_PUBLIC_URL)?.replace(/\/+$/, '') ?? null,
    trustProxy: flag(env, 'SVC_TRUST_PROXY'),
    sessionTtlSeconds: int(env, 'SVC_SESSION_TTL', 604800, 60),
    smtpUrl: nonEmpty(env.SVC_SMTP_URL),
    outboundAllowPrivate: flag(env, 'SVC_OUTBOUND_ALLOW_PRIVATE'),
    payAApi: nonEmpty(env.SVC_PAY_A_API),
    payBApi: nonEmpty(env.SVC_PAY_B_API),
    jobs: {
      pollMs: int(env, 'SVC_JOBS_POLL_MS', 1000, 10),
      timeoutMs: int(env, 'SVC_JOBS_TIMEOUT_MS', 10000, 100),
      maxAttempts: int(env, 'SVC_JOBS_MAX_ATTEMPTS', 8, 1, 100),
      backoffBaseMs: int(env, 'SVC_JOBS_BACKOFF_MS', 30000, 1),
      backoffMaxMs: int(env, 'SVC_JOBS_BACKOFF_MAX_MS', 3600000, 1),
      concurrency: int(env, 'SVC_JOBS_CONCURRENCY', 16, 1, 64),
    },
    logFormat: logFormat(env),
    logRequests: flag(env, 'SVC_LOG_REQUESTS'),
  }
  return Object.freeze(cfg)
}
