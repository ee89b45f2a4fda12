// Command-line surface of the binary (CONTRACT.md §1). Parsing and help text only; src/index.ts runs the
// commands. Anything the parser does not know is a usage error (exit 2), never a reason to start a server.
import { ENVIRONMENT } from './config'
import { IP_DATA } from './version'

interface CommandSpec {
  usage: string
  summary: string
  /** Flags that take a value (`--port 80` or `--port=80`). */
  values: readonly string[]
  /** Flags without a value. */
  switches: readonly string[]
  /** Positional arguments, all required: name → what it is (said when missing). */
  args: readonly (readonly [name: string, what: string])[]
}

const DATA = ['data-dir']

export const COMMANDS = {
  serve: {
    usage: 'serve [--port N] [--host H] [--data-dir DIR]',
    summary: 'start the server (the default command); the flags override PORT, HOST, SVC_DATA_DIR',
    values: ['port', 'host', ...DATA], switches: [], args: [],
  },
  migrate: {
    usage: 'migrate [--data-dir DIR] [--to postgres://…]',
    summary: 'create or upgrade the database and exit (refused while a server runs on the directory); ' +
      '--to: copy the SQLite installation into an empty PostgreSQL database instead (stop the server first)',
    values: ['to', ...DATA], switches: [], args: [],
  },
  'user add': {
    usage: 'user add --email E [--owner] [--password P] [--data-dir DIR]',
    summary: 'create an admin user (--owner: every permission); the password is read from stdin or a prompt',
    values: ['email', 'password', ...DATA], switches: ['owner'], args: [],
  },
  'user passwd': {
    usage: 'user passwd --email E [--data-dir DIR]',
    summary: "set a user's password (read from stdin or a prompt) and sign out their sessions",
    values: ['email', ...DATA], switches: [], args: [],
  },
  'token create': {
    usage: 'token create --name N --scopes a,b [--expires-at ISO] [--data-dir DIR]',
    summary: 'create an agent API token for /mcp and /admin/api (scopes: see docs/agent-api.md, or "all"); prints the token once',
    values: ['name', 'scopes', 'expires-at', ...DATA], switches: [], args: [],
  },
  backup: {
    usage: 'backup FILE [--data-dir DIR]',
    summary: 'write a consistent copy of the database to FILE (0600, never overwrites) while the server runs',
    values: DATA, switches: [], args: [['FILE', 'the file to write the copy to']],
  },
  call: {
    usage: 'call TOOL [--args JSON] [--url URL]',
    summary: "call one agent tool (the verbs behind the admin API and /mcp: list_caps, update_costs, get_split_test, …) on a running server with the agent token in SVC_TOKEN; prints its JSON answer (URL: --url, else SVC_PUBLIC_URL, else 127.0.0.1:PORT)",
    values: ['args', 'url'], switches: [], args: [['TOOL', 'the tool name (GET /admin/api/tokens/scopes and tools/list name them)']],
  },
  version: { usage: 'version', summary: 'print the version (also --version)', values: [], switches: [], args: [] },
  help: { usage: 'help', summary: 'this text (also --help, -h)', values: [], switches: [], args: [] },
} satisfies Record<string, CommandSpec>

export type CommandName = keyof typeof COMMANDS

export interface ParsedArgs {
  command: CommandName
  /** Value flags map to their value; switches to true. */
  flags: Record<string, string | true>
  /** Positional arguments, in the order of the command's `args`. */
  args: string[]
}

/** A command line svc cannot run: exit 2 with the message and the usage on stderr. */
export class UsageError extends Error {
  constructor(message: string, readonly command: CommandName | null) {
    super(message)
  }
}

const GROUPS = new Set(['user', 'token'])
const specs: Array<[string, CommandSpec]> = Object.entries(COMMANDS)
const VALUE_FLAGS = new Set(specs.flatMap(([, c]) => c.values))
const SWITCHES = new Set(specs.flatMap(([, c]) => c.switches))

/** `svc user add --email a@b --owner` → { command: 'user add', flags: { email: 'a@b', owner: true }, args: [] } */
export function parseArgs(argv: string[]): ParsedArgs {
  if (argv.includes('--help') || argv.includes('-h')) return { command: 'help', flags: {}, args: [] }
  if (argv.includes('--version')) return { command: 'version', flags: {}, args: [] }

  // One pass: a flag any command knows as a value flag takes the next word, so `--data-dir x backup f`
  // reads the same as `backup f --data-dir x`. Which flags the chosen command accepts is checked after.
  const words: string[] = []
  const given: Array<{ name: string; value: string | true | null }> = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (!a.startsWith('-') || a === '-') {
      words.push(a)
      continue
    }
    if (!a.startsWith('--') || a === '--') throw new UsageError(`unknown flag ${a}`, null)
    const eq = a.indexOf('=')
    const name = eq > 0 ? a.slice(2, eq) : a.slice(2)
    if (eq > 0) given.push({ name, value: a.slice(eq + 1) })
    else if (VALUE_FLAGS.has(name)) {
      const next = argv[i + 1]
      given.push({ name, value: next !== undefined && !next.startsWith('--') ? argv[++i]! : null })
    } else given.push({ name, value: true })
  }

  let command: CommandName = 'serve'
  let rest = words
  if (words.length > 0) {
    const [first, second] = words as [string, string | undefined]
    const name = GROUPS.has(first) ? `${first} ${second ?? ''}`.trim() : first
    if (!(name in COMMANDS)) {
      if (!GROUPS.has(first)) throw new UsageError(`unknown command: ${first}`, null)
      const subs = specs.map(([c]) => c).filter((c) => c.startsWith(`${first} `)).map((c) => `svc ${c}`).join(', ')
      throw new UsageError(`${second ? `unknown command: ${name}` : `missing command after "${first}"`} (try ${subs})`, null)
    }
    command = name as CommandName
    rest = words.slice(name.split(' ').length)
  }
  const spec: CommandSpec = COMMANDS[command]

  const flags: Record<string, string | true> = {}
  for (const { name, value } of given) {
    const shown = `--${name}`
    if (!spec.values.includes(name) && !spec.switches.includes(name)) {
      throw new UsageError(VALUE_FLAGS.has(name) || SWITCHES.has(name) ? `svc ${command} has no ${shown} flag` : `unknown flag ${shown}`, command)
    }
    if (name in flags) throw new UsageError(`${shown} is given twice`, command)
    if (spec.switches.includes(name)) {
      if (value !== true) throw new UsageError(`${shown} takes no value`, command)
      flags[name] = true
    } else {
      if (value === null || value === true) throw new UsageError(`${shown} needs a value`, command)
      flags[name] = value
    }
  }

  const missing = spec.args[rest.length]
  if (missing) throw new UsageError(`svc ${command}: missing ${missing[0]}, ${missing[1]}`, command)
  if (rest.length > spec.args.length) throw new UsageError(`unexpected argument "${rest[spec.args.length]}"`, command)
  return { command, flags, args: rest }
}

export function usageOf(command: CommandName): string {
  return `Usage: svc ${COMMANDS[command].usage}\n(svc --help lists every command and environment variable)`
}

const column = (rows: Array<[string, string]>) => {
  const width = Math.max(...rows.map(([a]) => a.length)) + 2
  return rows.map(([a, b]) => `  ${a.padEnd(width)}${b}`).join('\n')
}

export const HELP = `svc — self-hosted click tracker and conversion attribution

Usage: svc [command] [flags]

Commands:
${Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.summary}`).join('\n')}

Passwords: \`user add\` and \`user passwd\` read the password from stdin when it is piped
(printf '%s\\n' "$PW" | svc user passwd --email E), otherwise they prompt without echo.
--password P also works for scripts, but other users of the machine can see it in \`ps\`.

Environment (default in brackets):
${column(ENVIRONMENT.map(([name, fallback, meaning]) => [fallback ? `${name} [${fallback}]` : name, meaning] as [string, string]))}

Exit codes: 0 success, 1 error (the message says what), 2 usage error.

${IP_DATA}`
