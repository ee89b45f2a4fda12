#!/usr/bin/env bun
// Entry point of `npm start` and of the compiled binary: the only module with side effects at import.
// Every failure ends as one line on stderr and an exit code (1 error, 2 usage), never a dump of source.
import { resolve } from 'node:path'
import { loadConfig, callTarget, dataPaths, databaseUrlOf, requireDatabase, ConfigError, type Config, type ConfigFlags } from './config'
import { callTool, parseToolArgs } from './cli-call'
import { parseArgs, HELP, UsageError, usageOf, type CommandName } from './cli'
import { readNewPassword, PasswordInputError } from './cli-password'
import { createContext, createServer, openStorage, type SvcServer } from './server'
import { IP_DATA, VERSION } from './version'
import { AppError } from './lib/errors'
import { invoke, systemActor } from './lib/verb'
import { usersVerbs } from './users/verbs'
import { agentVerbs } from './agent/verbs'
import { agentStore } from './agent/store'
import { openDatabase } from './db/client'
import { backupInto, BackupTargetExists } from './db/backup'
import { lockDataDir, DataDirBusy } from './db/lock'
import { PgUnavailable, redactUrl } from './db/pg/client'
import { moveToPg, MoveError } from './db/move-to-pg'
import { log, setLogFormat } from './lib/log'
import { startGcPacer } from './lib/gc-pacer'
import { GeoIpError } from './lib/geoip'

type Flags = Record<string, string | true>

/** A failure the operator can fix (port taken, unknown user…); its message is the whole story. */
class CommandError extends Error {}

const value = (flags: Flags, name: string) => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined)

function configFlags(flags: Flags): ConfigFlags {
  return { port: value(flags, 'port'), host: value(flags, 'host'), dataDir: value(flags, 'data-dir') }
}

/** Bun's listen errors, said in the operator's terms (the settings to change are named). */
function listenFailure(err: unknown, config: Readonly<Config>): CommandError {
  const code = (err as { code?: string }).code ?? ''
  const where = `cannot listen on ${config.host}:${config.port}`
  if (code === 'EADDRINUSE') return new CommandError(`${where}: the port is already in use (set PORT or --port)`)
  if (code === 'EACCES') return new CommandError(`${where}: permission denied (ports below 1024 need privileges; set PORT or --port)`)
  if (['EADDRNOTAVAIL', 'ENOENT', 'ENOTFOUND', 'EAI_NONAME', 'EINVAL'].includes(code)) {
    return new CommandError(`${where}: "${config.host}" is not an address of this machine (set HOST or --host, e.g. 0.0.0.0 or 127.0.0.1)`)
  }
  return new CommandError(`${where}: ${(err as Error).message ?? err}`)
}

/** The From outgoing mail uses and where it comes from, for the start line (src/email/outbox.ts picks it the same way). */
function mailFromOf(setting: string | null, config: Readonly<Config>): string {
  if (setting) return `${setting} (email_from setting)`
  if (config.emailFrom) return `${config.emailFrom.mailbox} (from ${config.emailFrom.source})`
  return 'none (mail waits in the outbox as unsent)'
}

/** Where the IP data comes from and its date, for the start line (an operator sees stale data there). */
function ipDataOf(geo: SvcServer['geo'], config: Readonly<Config>): string {
  const { date, city } = geo.info
  const from = config.geoip.dir ? config.geoip.dir : 'embedded'
  return `${from}, ${date}${city ? `, city ${city.join(',')}` : ''}`
}

async function serve(flags: Flags) {
  process.env.NODE_ENV ??= 'production'
  const config = loadConfig(process.env, configFlags(flags))
  setLogFormat(config.logFormat)
  // One server per data directory on SQLite; on Postgres instances share the database and no directory.
  const lock = config.databaseUrl ? null : lockDataDir(config.dataDir)
  // Said before the database opens, so a failure to open it is read next to where svc looked.
  log.info(config.databaseUrl ? `database ${redactUrl(config.databaseUrl)}` : `data directory ${config.dataDir}`)
  const server = await createServer(config)
  let address: { port: number; hostname: string }
  try {
    address = await server.listen()
  } catch (err) {
    throw listenFailure(err, config)
  }
  const { port, hostname } = address
  const gcPacer = startGcPacer(config.gcPaceMs)
  const { settings } = server.ctx
  // One line an operator can check the whole set-up against (no secret in it, only whether one is set).
  log.info('svc started', {
    version: VERSION,
    address: `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`,
    ...(config.databaseUrl ? { database: redactUrl(config.databaseUrl) } : { data_dir: config.dataDir }),
    public_url: config.publicUrl ?? 'not set',
    smtp: config.smtpUrl ? 'configured' : 'not configured',
    mail_from: mailFromOf(settings.get('email_from'), config),
    postback_signing: settings.get('postback_secret') ? 'on' : 'off',
    access_log: config.logRequests ? 'on' : 'off',
    ip_data: ipDataOf(server.geo, config),
  })
  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info('stopping: finishing in-flight work', { signal })
    gcPacer?.stop()
    await server.stop()
    lock?.release()
    log.info('stopped cleanly')
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}

/** Refused while a server runs: new migrations must not change the schema under a running older server. */
async function migrateCommand(flags: Flags): Promise<number> {
  const to = value(flags, 'to')
  if (to !== undefined) return moveCommand(to, flags)
  const config = loadConfig(process.env, configFlags(flags))
  setLogFormat(config.logFormat)
  // On Postgres, running instances may stay up: the migrator holds an advisory lock, and migrations
  // only add (a rolling upgrade starts new instances after `svc migrate`).
  const lock = config.databaseUrl ? null : lockDataDir(config.dataDir)
  try {
    const ctx = await createContext(config)
    await ctx.database.close()
  } finally {
    lock?.release()
  }
  console.log(`database ${config.databaseUrl ? redactUrl(config.databaseUrl) : config.dbPath} is up to date`)
  return 0
}

/** migrate --to: copies the SQLite installation into an empty PostgreSQL database (src/db/move-to-pg.ts). */
async function moveCommand(url: string, flags: Flags): Promise<number> {
  const paths = dataPaths(process.env, configFlags(flags))
  await moveToPg({ ...paths, url, env: process.env, out: (line) => console.log(line) })
  return 0
}

/** user add / user passwd open an existing instance (never create one) and may run beside the server. */
async function userCommand(command: 'user add' | 'user passwd', flags: Flags): Promise<number> {
  const email = value(flags, 'email')
  if (!email) throw new UsageError('--email is required', command)
  const config = loadConfig(process.env, configFlags(flags), { create: false })
  const ctx = await createContext(config)
  try {
    const verbs = usersVerbs(ctx.users)
    const cli = systemActor('cli')
    if (command === 'user add') {
      const password = value(flags, 'password') ?? (await readNewPassword())
      const user = await invoke(verbs.create, cli, { email, password, is_owner: flags.owner === true })
      console.log(`created user ${user.id} ${user.email}${user.is_owner ? ' (owner)' : ''} in ${config.databaseUrl ? redactUrl(config.databaseUrl) : config.dataDir}`)
    } else {
      // Looked up first, so nobody types a password for a user that does not exist.
      const found = await ctx.users.findByEmail(email)
      if (!found) throw new CommandError(`no user with email ${email} in ${config.databaseUrl ? redactUrl(config.databaseUrl) : config.dbPath}`)
      const password = await readNewPassword()
      // users.update bumps the session epoch with the new hash: every cookie of this user stops working.
      await invoke(verbs.update, cli, { id: found.id, password })
      console.log(`password of ${found.email} changed; their sessions are signed out`)
    }
  } finally {
    await ctx.database.close()
  }
  return 0
}

/**
 * token create: prints the new agent token on stdout (one line, nothing else: `TOKEN=$(svc token create …)`),
 * what it can do on stderr. Runs beside the server like user add.
 */
async function tokenCommand(flags: Flags): Promise<number> {
  const name = value(flags, 'name')
  const scopes = value(flags, 'scopes')
  if (!name) throw new UsageError('--name is required', 'token create')
  if (!scopes) throw new UsageError('--scopes is required (e.g. campaigns:read,reports:read, or all)', 'token create')
  const config = loadConfig(process.env, configFlags(flags), { create: false })
  // Storage only (no start-up notices on stdout): stdout carries the token alone.
  const database = await openStorage(config)
  try {
    const created = await invoke(agentVerbs(agentStore(database)).tokens.create, systemActor('cli'), {
      name, scopes: scopes.split(','), expires_at: value(flags, 'expires-at') ?? undefined,
    })
    console.log(created.token)
    console.error(`created token ${created.id} "${created.name}" with ${created.scopes.length} scopes${created.expires_at ? `, expires ${created.expires_at}` : ''}; it is shown only this once`)
  } finally {
    await database.close()
  }
  return 0
}

/** Read-only: needs no lock, no secret and no migration, so it runs while the server keeps writing. */
async function backupCommand(file: string, flags: Flags): Promise<number> {
  if (databaseUrlOf(process.env)) {
    throw new CommandError('svc backup copies the embedded SQLite database; with SVC_DATABASE_URL back up PostgreSQL with pg_dump (see README, "Scaling out")')
  }
  const target = resolve(file)
  const paths = dataPaths(process.env, configFlags(flags))
  requireDatabase(paths)
  const database = await openDatabase(paths.dbPath)
  try {
    backupInto(database, target)
  } finally {
    database.close()
  }
  console.log(`backup of ${paths.dbPath} written to ${target}`)
  return 0
}

/** call: one agent tool on a running server (the answer's JSON on stdout; a refusal on stderr, exit 1). */
async function callCommand(tool: string, flags: Flags): Promise<number> {
  const args = parseToolArgs(value(flags, 'args') ?? undefined)
  if (typeof args === 'string') throw new UsageError(args, 'call')
  const outcome = await callTool(callTarget(process.env, value(flags, 'url') ?? undefined), tool, args)
  if (!outcome.ok) throw new CommandError(outcome.text)
  console.log(outcome.text)
  return 0
}

async function main(argv: string[]): Promise<number> {
  const { command, flags, args } = parseArgs(argv)
  switch (command) {
    case 'help':
      console.log(HELP)
      return 0
    case 'version':
      console.log(`${VERSION}\n${IP_DATA}`)
      return 0
    case 'serve':
      await serve(flags)
      return -1 // keep running
    case 'migrate':
      return migrateCommand(flags)
    case 'user add':
    case 'user passwd':
      return userCommand(command, flags)
    case 'backup':
      return backupCommand(args[0]!, flags)
    case 'token create':
      return tokenCommand(flags)
    case 'call':
      return callCommand(args[0]!, flags)
  }
}

function usageFailure(message: string, command: CommandName | null): number {
  console.error(`error: ${message}\n\n${command ? usageOf(command) : HELP}`)
  return 2
}

/** The exit code for a failure, after saying it on stderr in one line (usage errors add the usage). */
function failure(err: unknown): number {
  if (err instanceof UsageError) return usageFailure(err.message, err.command)
  if (err instanceof ConfigError && err.usage) return usageFailure(err.message, 'serve')
  const expected = [ConfigError, AppError, CommandError, DataDirBusy, PasswordInputError, BackupTargetExists, MoveError, PgUnavailable, GeoIpError]
  if (expected.some((type) => err instanceof type)) {
    console.error(`error: ${(err as Error).message}`)
    return 1
  }
  // File system and SQLite errors carry a code and a message that says enough (path, reason).
  const e = err as { code?: unknown; message?: unknown; stack?: unknown }
  if (typeof e?.code === 'string' && typeof e.message === 'string') {
    console.error(`error: ${e.message} (${e.code})`)
    return 1
  }
  // A bug: the stack's frames help whoever fixes it (err.stack has no source excerpt, unlike printing err).
  console.error(`error: ${typeof e?.stack === 'string' ? e.stack : String(err)}`)
  return 1
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code)
  },
  (err) => process.exit(failure(err)),
)
