#!/usr/bin/env bun
// Entry point of `npm start` and of the compiled binary: the only module with side effects at import.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { loadConfig, ConfigError, type ConfigFlags } from './config'
import { parseArgs, HELP } from './cli'
import { createContext, createServer } from './server'
import { VERSION } from './version'
import { AppError } from './lib/errors'
import { invoke, systemActor } from './lib/verb'
import { usersVerbs } from './users/verbs'
import { backupInto } from './db/backup'
import { log } from './lib/log'

function serveFlags(flags: Record<string, string | true>): ConfigFlags {
  const pick = (k: string) => (typeof flags[k] === 'string' ? (flags[k] as string) : undefined)
  return { port: pick('port'), host: pick('host'), dataDir: pick('data-dir') }
}

async function serve(flags: Record<string, string | true>) {
  process.env.NODE_ENV ??= 'production'
  const server = await createServer(loadConfig(process.env, serveFlags(flags)))
  const { port, hostname } = await server.listen()
  const { config, settings } = server.ctx
  // One line an operator can check the whole set-up against (no secret in it, only whether one is set).
  log.info('svc started', {
    version: VERSION,
    address: `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`,
    data_dir: config.dataDir,
    public_url: config.publicUrl ?? 'not set',
    smtp: config.smtpUrl ? 'configured' : 'not configured',
    postback_signing: settings.get('postback_secret') ? 'on' : 'off',
    access_log: config.logRequests ? 'on' : 'off',
  })
  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info('stopping: finishing in-flight work', { signal })
    await server.stop()
    log.info('stopped cleanly')
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}

async function main(argv: string[]): Promise<number> {
  const { command, flags } = parseArgs(argv)
  const [cmd = 'serve', sub] = command
  if (flags.help || cmd === 'help') {
    console.log(HELP)
    return 0
  }
  switch (cmd) {
    case 'serve':
      await serve(flags)
      return -1 // keep running
    case 'version':
      console.log(VERSION)
      return 0
    case 'migrate': {
      const ctx = await createContext(loadConfig(process.env, serveFlags(flags)))
      ctx.database.close()
      console.log('database is up to date')
      return 0
    }
    case 'user': {
      if (sub !== 'add') break
      const ctx = await createContext(loadConfig(process.env, serveFlags(flags)))
      try {
        // A flag given without a value reads as "" so the verb's own rule names it.
        const text = (v: string | true | undefined) => (typeof v === 'string' ? v : '')
        const user = await invoke(usersVerbs(ctx.users).create, systemActor('cli'), {
          email: text(flags.email), password: text(flags.password), is_owner: flags.owner === true,
        })
        console.log(`created user ${user.id} ${user.email}${user.is_owner ? ' (owner)' : ''}`)
      } finally {
        ctx.database.close()
      }
      return 0
    }
    case 'token':
      console.error('svc token create: agent API tokens arrive with the /mcp feature and are not available in this version')
      return 2
    case 'backup': {
      if (!sub) break
      const target = resolve(sub)
      if (existsSync(target)) {
        console.error(`backup: ${target} already exists; choose a new file name`)
        return 1
      }
      const ctx = await createContext(loadConfig(process.env, serveFlags(flags)))
      try {
        backupInto(ctx.database, target)
      } finally {
        ctx.database.close()
      }
      console.log(`backup written to ${target}`)
      return 0
    }
  }
  console.error(`unknown command: ${command.join(' ') || cmd}\n\n${HELP}`)
  return 2
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code)
  },
  (err) => {
    if (err instanceof ConfigError || err instanceof AppError) console.error(`error: ${err.message}`)
    else console.error(err)
    process.exit(1)
  },
)
