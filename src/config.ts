// The only reader of the environment. Everything else receives a frozen Config.
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync, statSync, accessSync, constants } from 'node:fs'
import { join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { LogFormat } from './lib/log'
import { parseMailbox } from './settings/registry'

export interface Config {
  port: number
  host: string
  dataDir: string
  dbPath: string
  /**
   * SVC_DATABASE_URL (postgres://…): the Postgres engine, shared by any number of instances. Null: the
   * embedded SQLite database at dbPath (one instance per data directory).
   */
  databaseUrl: string | null
  /** Master secret: signs admin cookies and derives the key that encrypts stored secrets. */
  secret: string
  adminEmail: string | null
  adminPassword: string | null
  publicUrl: string | null
  /**
   * SVC_LANDING_ORIGIN (e.g. https://go.example.com): the separate hostname hosted landings are served on.
   * Links to landings, pixel.js and offer_url on landing pages use it, and /lp requests arriving on any
   * other host are redirected there, so a landing never runs on the dashboard's host. Null: landings are
   * served on whatever host they are asked on (still sandboxed: see src/landings/public-routes.ts).
   */
  landingOrigin: string | null
  trustProxy: boolean
  sessionTtlSeconds: number
  smtpUrl: string | null
  /**
   * The From of outgoing mail when the email_from setting is unset (the setting wins): SVC_EMAIL_FROM, else
   * noreply@<host of SVC_PUBLIC_URL> (when that host is a mail domain, not an IP address or localhost), else
   * null: then mail waits in the outbox as unsent until a From exists (src/email/outbox.ts).
   */
  emailFrom: { mailbox: string; source: 'SVC_EMAIL_FROM' | 'SVC_PUBLIC_URL' } | null
  /** The payment processors' API bases (SVC_PAY_A_API, SVC_PAY_B_API): their public APIs unless set (tests point them at local servers). */
  payAApi: string
  payBApi: string
  outboundAllowPrivate: boolean
  /** Job loop tuning; env overrides exist so tests and operators can shorten retries. */
  jobs: {
    pollMs: number
    timeoutMs: number
    maxAttempts: number
    backoffBaseMs: number
    backoffMaxMs: number
    concurrency: number
    /**
     * Postgres: how long a claimed job stays with the instance that claimed it. When that instance dies,
     * another one claims the job again after this long. Longer than an attempt (timeoutMs).
     */
    leaseMs: number
  }
  /** SVC_LOG_FORMAT: `text` (default, one `key=value` line per event) or `json` (one object per line). */
  logFormat: LogFormat
  /** SVC_LOG_REQUESTS=1: one access-log line per request; nothing is done per request when off. */
  logRequests: boolean
  /** SVC_GC_PACE_MS: an eden collection this often while the server is busy (lib/gc-pacer.ts); 0 turns it off. */
  gcPaceMs: number
  /**
   * The IP data (docs/geoip.md): SVC_GEOIP_DIR, a directory of newer CSV files to use instead of the embedded
   * tables (null: embedded); SVC_GEOIP_CITY, city databases in mmdb format (empty: no region and city).
   * Resolved against the working directory; whether the files are usable is checked when they are loaded.
   */
  geoip: { dir: string | null; city: string[] }
}

export type Env = Record<string, string | undefined>

/** SVC_JOBS_LEASE_MS defaults to the attempt timeout plus this much. */
const LEASE_MARGIN_MS = 30_000

/** One variable: its default (null: none; false: a flag that is off) and what `svc --help` says about it. */
interface Variable {
  fallback: number | string | boolean | null
  /** What --help shows as the default when that is not the value itself. */
  shown?: string
  meaning: string
}

/**
 * Every variable loadConfig reads, each default written only here: the parser below takes its defaults from
 * this table and `svc --help` prints it (the binary ships without README). A variable loadConfig reads gets its
 * row here; test/core/cli.test.ts checks that none is missing.
 */
const VARIABLES = {
  PORT: { fallback: 3000, meaning: 'listen port (0: any free port)' },
  HOST: { fallback: '0.0.0.0', meaning: 'listen address' },
  SVC_DATA_DIR: { fallback: './data', meaning: 'directory of svc.db and secret.key, resolved against the working directory; one server per directory' },
  SVC_DATABASE_URL: { fallback: null, meaning: 'postgres://user:password@host:5432/db: PostgreSQL instead of the embedded SQLite file (several instances, SVC_SECRET required)' },
  // Unset, the secret is generated into (and read from) this file of the data directory.
  SVC_SECRET: { fallback: 'secret.key', meaning: 'master secret, at least 16 characters (signs cookies, encrypts stored secrets); unset: generated into SVC_DATA_DIR/secret.key' },
  SVC_ADMIN_EMAIL: { fallback: null, meaning: 'with SVC_ADMIN_PASSWORD: the first owner, created at start only while no user exists' },
  SVC_ADMIN_PASSWORD: { fallback: null, meaning: 'see SVC_ADMIN_EMAIL; it never changes an existing password (use `svc user passwd`)' },
  SVC_PUBLIC_URL: { fallback: null, meaning: 'public base address, e.g. https://track.example.com (https: cookies get Secure)' },
  SVC_LANDING_ORIGIN: { fallback: null, meaning: 'e.g. https://go.example.com: a separate hostname (pointed at this server) for hosted landings; /lp on other hosts redirects there' },
  SVC_TRUST_PROXY: { fallback: false, meaning: '1: client IP from the right-most X-Forwarded-For entry, https from X-Forwarded-Proto' },
  SVC_SESSION_TTL: { fallback: 604800, meaning: 'admin session lifetime in seconds' },
  SVC_PAY_A_API: { fallback: 'https://api.stripe.com', meaning: "payment processor A's API base (checkout, webhook registration)" },
  SVC_PAY_B_API: { fallback: 'https://api-m.paypal.com', meaning: "payment processor B's API base (webhook verification, OAuth); the sandbox is https://api-m.sandbox.paypal.com" },
  SVC_SMTP_URL: { fallback: null, meaning: 'smtp://user:pass@host:587 (STARTTLS when offered) or smtps://…:465: the relay svc sends mail through; unset: mail waits in the outbox' },
  SVC_EMAIL_FROM: { fallback: null, meaning: 'From of outgoing mail, an address or "Name <address>"; the email_from setting wins; unset: noreply@<host of SVC_PUBLIC_URL>' },
  SVC_OUTBOUND_ALLOW_PRIVATE: { fallback: false, meaning: '1: forwarded postbacks may target loopback and private addresses' },
  SVC_JOBS_POLL_MS: { fallback: 1000, meaning: 'how often the job loop looks for due work' },
  SVC_JOBS_TIMEOUT_MS: { fallback: 10000, meaning: 'timeout of one outbound attempt' },
  SVC_JOBS_MAX_ATTEMPTS: { fallback: 8, meaning: 'attempts before a job is marked failed' },
  SVC_JOBS_BACKOFF_MS: { fallback: 30000, meaning: 'first retry delay, doubled per attempt' },
  SVC_JOBS_BACKOFF_MAX_MS: { fallback: 3600000, meaning: 'longest retry delay' },
  SVC_JOBS_CONCURRENCY: { fallback: 16, meaning: 'outbound attempts in flight at once' },
  SVC_JOBS_LEASE_MS: { fallback: null, shown: `timeout + ${LEASE_MARGIN_MS}`, meaning: 'Postgres: a job claimed by an instance that died is claimed again after this long' },
  SVC_LOG_FORMAT: { fallback: 'text', meaning: 'text: one line per event; json: one JSON object per line (for log shippers)' },
  SVC_LOG_REQUESTS: { fallback: false, meaning: '1: access log, one line per request (method, path without query, status, ms, client IP)' },
  SVC_GC_PACE_MS: { fallback: 50, meaning: 'while the server is busy, a young-generation garbage collection this often (keeps RSS near the live size); 0: off' },
  SVC_GEOIP_DIR: { fallback: null, shown: 'embedded data', meaning: 'a directory of newer IP data CSV files (geo-whois-asn-country-ipv4/-ipv6.csv, asn-ipv4/-ipv6.csv of @ip-location-db) used instead of the embedded tables' },
  SVC_TOKEN: { fallback: null, meaning: '`svc call` only: the agent token it sends (svc token create); kept out of the command line so `ps` cannot show it' },
  SVC_GEOIP_CITY: { fallback: null, meaning: 'city database file(s) in mmdb format (DB-IP City Lite, GeoLite2 City), comma-separated: clicks get region and city' },
} as const satisfies Record<string, Variable>

type Name = keyof typeof VARIABLES
type NameOf<T> = { [K in Name]: (typeof VARIABLES)[K]['fallback'] extends T ? K : never }[Name]

/** The table as `svc --help` prints it: [name, default ('' for none, 0 for a flag that is off), meaning]. */
export const ENVIRONMENT: ReadonlyArray<readonly [name: string, fallback: string, meaning: string]> = Object.entries(VARIABLES).map(
  ([name, v]: [string, Variable]) => [name, v.shown ?? (v.fallback === null ? '' : v.fallback === false ? '0' : String(v.fallback)), v.meaning] as const,
)

/** Flags of `svc serve` (--port, --host, --data-dir) win over the environment. */
export interface ConfigFlags {
  port?: string
  host?: string
  dataDir?: string
}

/** A setting that cannot be used. `usage`: the culprit is a command-line flag (exit 2, like other usage errors). */
export class ConfigError extends Error {
  constructor(message: string, readonly usage = false) {
    super(message)
  }
}

/**
 * serve and migrate create a missing data directory, database and secret.key; every other command only
 * opens what a server made, so a command run from the wrong directory fails instead of starting an
 * empty instance there.
 */
export interface LoadOptions {
  create?: boolean
}

/** A whole number from the environment, or the table's default. */
function int(env: Env, name: NameOf<number>, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  return intOr(env, name, VARIABLES[name].fallback, min, max)
}

function intOr(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`)
  const n = Number(raw)
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`)
  return n
}

function flag(env: Env, name: NameOf<boolean>): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase()
  if (raw === '') return VARIABLES[name].fallback
  return raw === '1' || raw === 'true' || raw === 'yes'
}

function logFormat(env: Env): LogFormat {
  const raw = (env.SVC_LOG_FORMAT ?? '').trim().toLowerCase()
  if (raw === '') return VARIABLES.SVC_LOG_FORMAT.fallback
  if (raw === 'text' || raw === 'json') return raw
  throw new ConfigError(`SVC_LOG_FORMAT must be text or json, got "${env.SVC_LOG_FORMAT}"`)
}

/** An http(s) API base without its trailing slash. */
function apiBase(env: Env, name: 'SVC_PAY_A_API' | 'SVC_PAY_B_API'): string {
  const raw = nonEmpty(env[name])
  if (raw === null) return VARIABLES[name].fallback
  const u = URL.parse(raw)
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`)
  return raw.replace(/\/+$/, '')
}

/** smtp:// or smtps:// with a host, or a ConfigError that never echoes the password. */
function smtpUrlOf(env: Env): string | null {
  const raw = nonEmpty(env.SVC_SMTP_URL)
  if (raw === null) return null
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new ConfigError('SVC_SMTP_URL is not a URL (expected smtp://user:password@host:587 or smtps://user:password@host:465)')
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new ConfigError(`SVC_SMTP_URL must start with smtp:// or smtps:// (got ${u.protocol}//)`)
  if (!u.hostname) throw new ConfigError('SVC_SMTP_URL has no host')
  return raw
}

/** SVC_LANDING_ORIGIN: an http(s) origin (scheme, host, optional port; no path, query or credentials). */
function landingOriginOf(env: Env): string | null {
  const raw = nonEmpty(env.SVC_LANDING_ORIGIN)?.trim() ?? null
  if (raw === null) return null
  const u = URL.parse(raw)
  const bad = !u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname || u.username !== '' || u.password !== '' ||
    (u.pathname !== '/' && u.pathname !== '') || u.search !== '' || u.hash !== ''
  if (bad) throw new ConfigError(`SVC_LANDING_ORIGIN must be an http(s) origin such as https://go.example.com (no path), got "${raw}"`)
  return u!.origin
}

/** SVC_EMAIL_FROM, validated like the email_from setting; else the address derived from SVC_PUBLIC_URL; else null. */
function emailFromOf(env: Env, publicUrl: string | null): Config['emailFrom'] {
  const raw = nonEmpty(env.SVC_EMAIL_FROM)
  if (raw !== null) {
    const mailbox = parseMailbox(raw)
    if (!mailbox) throw new ConfigError(`SVC_EMAIL_FROM must be an email address, optionally "Name <address>", got "${raw.slice(0, 100)}"`)
    return { mailbox, source: 'SVC_EMAIL_FROM' }
  }
  const host = publicUrl === null ? null : URL.parse(publicUrl)?.hostname
  // parseMailbox refuses a host that is no mail domain (an IP address, localhost): no From rather than a bad one.
  const mailbox = host ? parseMailbox(`noreply@${host}`) : null
  return mailbox ? { mailbox, source: 'SVC_PUBLIC_URL' } : null
}

/** SVC_GEOIP_DIR and SVC_GEOIP_CITY (comma-separated), as absolute paths. */
function geoipOf(env: Env): Config['geoip'] {
  const dir = nonEmpty(env.SVC_GEOIP_DIR)
  const city = (env.SVC_GEOIP_CITY ?? '').split(',').map((f) => f.trim()).filter((f) => f !== '')
  return { dir: dir === null ? null : resolve(dir.trim()), city: city.map((f) => resolve(f)) }
}

function nonEmpty(v: string | undefined): string | null {
  return v === undefined || v.trim() === '' ? null : v
}

/** Reads SVC_SECRET, or generates one into DATA_DIR/secret.key (0600) on first start and reuses it. */
function loadSecret(env: Env, dataDir: string, create: boolean): string {
  const fromEnv = nonEmpty(env.SVC_SECRET)
  if (fromEnv) {
    if (fromEnv.length < 16) throw new ConfigError('SVC_SECRET must be at least 16 characters')
    return fromEnv
  }
  const file = join(dataDir, VARIABLES.SVC_SECRET.fallback)
  if (existsSync(file)) {
    const s = readFileSync(file, 'utf8').trim()
    if (s.length >= 16) return s
    throw new ConfigError(`${file} is shorter than 16 characters; remove it or set SVC_SECRET`)
  }
  if (!create) throw new ConfigError(`SVC_SECRET is not set and ${file} does not exist: set SVC_SECRET as the server has it`)
  const s = randomBytes(32).toString('hex')
  try {
    writeFileSync(file, s + '\n', { mode: 0o600 })
    chmodSync(file, 0o600)
  } catch (err) {
    throw new ConfigError(`cannot write ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'}): is the data directory writable?`)
  }
  return s
}

/**
 * Where the data lives, resolved to an absolute path. The default stays ./data (CONTRACT.md), relative to
 * the working directory: `serve` prints the resolved path and the other commands refuse a directory
 * without a database, so a wrong directory is visible at once. A service should set SVC_DATA_DIR.
 */
export function dataPaths(env: Env = process.env, flags: ConfigFlags = {}): { dataDir: string; dbPath: string } {
  const dataDir = resolve(flags.dataDir ?? nonEmpty(env.SVC_DATA_DIR) ?? VARIABLES.SVC_DATA_DIR.fallback)
  return { dataDir, dbPath: join(dataDir, 'svc.db') }
}

/** For commands that open an existing instance: the database must be there (nothing is created). */
export function requireDatabase(paths: { dataDir: string; dbPath: string }): void {
  let isFile = false
  try {
    isFile = statSync(paths.dbPath).isFile()
  } catch {}
  if (!isFile) {
    throw new ConfigError(
      `no database at ${paths.dbPath}: point SVC_DATA_DIR or --data-dir at the server's data directory ` +
        '(only `svc serve` and `svc migrate` create one)',
    )
  }
}

/** The data directory (0700 when svc creates it); a failure names the directory instead of dumping a stack. */
function makeDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    accessSync(dataDir, constants.W_OK)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error'
    throw new ConfigError(`cannot create the data directory ${dataDir} (${code}); set SVC_DATA_DIR or --data-dir to a writable directory`)
  }
}

function portOf(env: Env, flags: ConfigFlags): number {
  if (flags.port === undefined) return int(env, 'PORT', 0, 65535)
  try {
    return intOr({ '--port': flags.port }, '--port', VARIABLES.PORT.fallback, 0, 65535)
  } catch (err) {
    throw new ConfigError((err as Error).message, true)
  }
}

/**
 * Where `svc call` sends its tool call and with which token: --url, else SVC_PUBLIC_URL, else this machine's
 * PORT; the token from SVC_TOKEN (never a flag: other users see a command line in `ps`).
 */
export function callTarget(env: Env, url: string | undefined): { url: string; token: string } {
  const token = nonEmpty(env.SVC_TOKEN)
  if (!token) throw new ConfigError('svc call needs SVC_TOKEN: an agent token (create one with svc token create --name cli --scopes …)')
  const base = url ?? nonEmpty(env.SVC_PUBLIC_URL) ?? `http://127.0.0.1:${portOf(env, {})}`
  try {
    const u = new URL(base)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme')
  } catch {
    throw new ConfigError(`--url must be the server's http(s) address, e.g. http://127.0.0.1:3000 (got ${base})`)
  }
  return { url: base.replace(/\/+$/, ''), token }
}

/**
 * SVC_DATABASE_URL: postgres:// or postgresql://, checked before anything connects. The error message never
 * repeats the URL (it carries the password).
 */
export function databaseUrlOf(env: Env = process.env): string | null {
  const url = nonEmpty(env.SVC_DATABASE_URL)
  if (url === null) return null
  let scheme = ''
  try {
    scheme = new URL(url).protocol
  } catch {
    throw new ConfigError('SVC_DATABASE_URL is not a URL (expected postgres://user:password@host:5432/database)')
  }
  if (scheme !== 'postgres:' && scheme !== 'postgresql:') {
    throw new ConfigError(`SVC_DATABASE_URL must start with postgres:// (got ${scheme}//); leave it unset for the embedded SQLite database`)
  }
  return url
}

export function loadConfig(env: Env = process.env, flags: ConfigFlags = {}, options: LoadOptions = {}): Readonly<Config> {
  const create = options.create ?? true
  const { dataDir, dbPath } = dataPaths(env, flags)
  const databaseUrl = databaseUrlOf(env)
  const port = portOf(env, flags)
  const publicUrl = nonEmpty(env.SVC_PUBLIC_URL)?.replace(/\/+$/, '') ?? null
  const cfg: Config = {
    port,
    host: flags.host ?? nonEmpty(env.HOST) ?? VARIABLES.HOST.fallback,
    dataDir,
    dbPath,
    databaseUrl,
    secret: '', // read below, once every other value is known to be valid
    adminEmail: nonEmpty(env.SVC_ADMIN_EMAIL),
    adminPassword: nonEmpty(env.SVC_ADMIN_PASSWORD),
    publicUrl,
    landingOrigin: landingOriginOf(env),
    trustProxy: flag(env, 'SVC_TRUST_PROXY'),
    sessionTtlSeconds: int(env, 'SVC_SESSION_TTL', 60),
    smtpUrl: smtpUrlOf(env),
    emailFrom: emailFromOf(env, publicUrl),
    payAApi: apiBase(env, 'SVC_PAY_A_API'),
    payBApi: apiBase(env, 'SVC_PAY_B_API'),
    outboundAllowPrivate: flag(env, 'SVC_OUTBOUND_ALLOW_PRIVATE'),
    jobs: {
      pollMs: int(env, 'SVC_JOBS_POLL_MS', 10),
      timeoutMs: int(env, 'SVC_JOBS_TIMEOUT_MS', 100),
      maxAttempts: int(env, 'SVC_JOBS_MAX_ATTEMPTS', 1, 100),
      backoffBaseMs: int(env, 'SVC_JOBS_BACKOFF_MS', 1),
      backoffMaxMs: int(env, 'SVC_JOBS_BACKOFF_MAX_MS', 1),
      concurrency: int(env, 'SVC_JOBS_CONCURRENCY', 1, 64),
      leaseMs: 0, // below: its default follows the timeout
    },
    logFormat: logFormat(env),
    logRequests: flag(env, 'SVC_LOG_REQUESTS'),
    gcPaceMs: int(env, 'SVC_GC_PACE_MS', 0, 60_000),
    geoip: geoipOf(env),
  }
  cfg.jobs.leaseMs = intOr(env, 'SVC_JOBS_LEASE_MS', cfg.jobs.timeoutMs + LEASE_MARGIN_MS, 100)
  if (cfg.jobs.leaseMs <= cfg.jobs.timeoutMs) {
    throw new ConfigError(`SVC_JOBS_LEASE_MS (${cfg.jobs.leaseMs}) must be longer than SVC_JOBS_TIMEOUT_MS (${cfg.jobs.timeoutMs}): an attempt must end before its lease`)
  }
  if (databaseUrl !== null) {
    // Every instance must sign cookies and decrypt stored secrets alike: no secret.key file can be shared.
    const secret = nonEmpty(env.SVC_SECRET)
    if (!secret) throw new ConfigError('SVC_SECRET is required with SVC_DATABASE_URL: set the same secret on every instance')
    if (secret.length < 16) throw new ConfigError('SVC_SECRET must be at least 16 characters')
    cfg.secret = secret
    return Object.freeze(cfg) // Postgres mode keeps nothing in a data directory
  }
  // Every value is checked before anything is created: a typo never leaves an empty data directory behind.
  if (create) makeDataDir(dataDir)
  else requireDatabase({ dataDir, dbPath })
  cfg.secret = loadSecret(env, dataDir, create)
  return Object.freeze(cfg)
}
