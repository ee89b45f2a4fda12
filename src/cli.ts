// Command-line surface of the binary (CONTRACT.md §1). Parsing only; each command calls one function.
export interface ParsedArgs {
  command: string[]
  flags: Record<string, string | true>
}

/** `svc user add --email a@b --password x --owner` → { command: ['user','add'], flags: {...} } */
export function parseArgs(argv: string[]): ParsedArgs {
  const command: string[] = []
  const flags: Record<string, string | true> = {}
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a.startsWith('--')) {
      const eq = a.indexOf('=')
      if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1)
      else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) flags[a.slice(2)] = argv[++i]!
      else flags[a.slice(2)] = true
    } else if (a === '-h') flags.help = true
    else command.push(a)
  }
  return { command, flags }
}

export const HELP = `svc — self-hosted click tracker and conversion attribution

Usage: svc [command] [flags]

Commands:
  serve                      start the server (default)
                               --port N --host H --data-dir DIR (override PORT, HOST, SVC_DATA_DIR)
  migrate                    apply pending database migrations and exit
  user add --email E --password P [--owner]
                             create an admin user (--owner: every permission)
  token create --name N --scopes a,b
                             create an agent API token (arrives with the /mcp issue)
  backup FILE                write a consistent copy of the live database to FILE
  version                    print the version
  --help                     this text

Environment: PORT, HOST, SVC_DATA_DIR, SVC_SECRET, SVC_ADMIN_EMAIL, SVC_ADMIN_PASSWORD, SVC_PUBLIC_URL,
SVC_TRUST_PROXY, SVC_SESSION_TTL, SVC_SMTP_URL, SVC_OUTBOUND_ALLOW_PRIVATE, SVC_PAY_A_API, SVC_PAY_B_API
(see README.md).`
