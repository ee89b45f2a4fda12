// Where the data is, and how a start fails: only serve and migrate create a data directory; every other
// command run from the wrong place fails and creates nothing; start-up failures are one line on stderr.
import { afterAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { emptyDir, svc } from '../helpers/cli'
import { TEST_ENV } from '../helpers/server'
import { onPostgres } from '../helpers/pg'

// Each test runs svc as child processes (about 0.5 s each alone, several times that on a loaded machine).
setDefaultTimeout(30_000)

const dirs: string[] = []
const fresh = () => {
  const d = emptyDir()
  dirs.push(d)
  return d
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** Exactly one line, no stack frames, no source excerpt. */
function oneLine(err: string): string {
  const lines = err.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toStartWith('error: ')
  return lines[0]!
}

// The data directory holds the SQLite database; Postgres mode creates none (cli-pg.test.ts).
describe.skipIf(onPostgres)('commands other than serve and migrate never create a data directory', () => {
  const commands: string[][] = [
    ['backup', 'out.db'],
    ['user', 'add', '--email', 'a@example.com', '--password', 'long-enough-1'],
    ['user', 'passwd', '--email', 'a@example.com'],
  ]
  for (const args of commands) {
    test(`svc ${args.slice(0, 2).join(' ')} in a directory without a database fails and creates nothing`, () => {
      const cwd = fresh()
      const r = svc(args, {}, { cwd, stdin: 'long-enough-1\n' })
      expect(r.code).toBe(1)
      expect(oneLine(r.err)).toBe(
        `error: no database at ${join(cwd, 'data', 'svc.db')}: point SVC_DATA_DIR or --data-dir at the server's data directory ` +
          '(only `svc serve` and `svc migrate` create one)',
      )
      expect(readdirSync(cwd)).toEqual([])
      const elsewhere = join(fresh(), 'missing')
      expect(svc(args, { SVC_DATA_DIR: elsewhere }, { cwd, stdin: 'long-enough-1\n' }).code).toBe(1)
      expect(existsSync(elsewhere)).toBe(false)
    })
  }

  test('a database without its secret.key (and no SVC_SECRET) is refused by user commands, not given a new secret', () => {
    const dir = fresh()
    expect(svc(['migrate'], { SVC_DATA_DIR: dir, SVC_SECRET: TEST_ENV.SVC_SECRET! }).code).toBe(0)
    const r = svc(['user', 'add', '--email', 'a@example.com', '--password', 'long-enough-1'], { SVC_DATA_DIR: dir })
    expect(r.code).toBe(1)
    expect(oneLine(r.err)).toBe(`error: SVC_SECRET is not set and ${join(dir, 'secret.key')} does not exist: set SVC_SECRET as the server has it`)
    expect(existsSync(join(dir, 'secret.key'))).toBe(false)
  })

  test('--data-dir is relative to the working directory and printed resolved by migrate', () => {
    const cwd = fresh()
    const r = svc(['migrate', '--data-dir', 'here'], { SVC_SECRET: TEST_ENV.SVC_SECRET! }, { cwd })
    expect(r.code).toBe(0)
    expect(r.out).toEndWith(`\ndatabase ${join(cwd, 'here', 'svc.db')} is up to date\n`)
  })
})

describe('start-up failures: one clear line, exit 1', () => {
  const env = { SVC_SECRET: TEST_ENV.SVC_SECRET!, HOST: '127.0.0.1', PORT: '0' }

  test('port in use', async () => {
    const taken = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
    try {
      const r = svc(['serve'], { ...env, SVC_DATA_DIR: fresh(), PORT: String(taken.port) })
      expect(r.code).toBe(1)
      expect(oneLine(r.err)).toBe(`error: cannot listen on 127.0.0.1:${taken.port}: the port is already in use (set PORT or --port)`)
    } finally {
      taken.stop(true)
    }
  })

  for (const host of ['no-such-host.invalid', '192.0.2.1']) {
    test(`HOST=${host} (not an address of this machine)`, () => {
      const r = svc(['serve'], { ...env, SVC_DATA_DIR: fresh(), HOST: host })
      expect(r.code).toBe(1)
      expect(oneLine(r.err)).toBe(
        `error: cannot listen on ${host}:0: "${host}" is not an address of this machine (set HOST or --host, e.g. 0.0.0.0 or 127.0.0.1)`,
      )
    })
  }

  test('a data directory that cannot be created', () => {
    const file = join(fresh(), 'a-file')
    writeFileSync(file, 'not a directory')
    const r = svc(['serve'], { ...env, SVC_DATA_DIR: join(file, 'data') })
    expect(r.code).toBe(1)
    expect(oneLine(r.err)).toBe(
      `error: cannot create the data directory ${join(file, 'data')} (ENOTDIR); set SVC_DATA_DIR or --data-dir to a writable directory`,
    )
  })

  test('a malformed setting stops the start before anything is created', () => {
    const cwd = fresh()
    const r = svc(['serve'], { ...env, SVC_SESSION_TTL: 'a week' }, { cwd })
    expect(r.code).toBe(1)
    expect(oneLine(r.err)).toBe('error: SVC_SESSION_TTL must be a whole number, got "a week"')
    expect(readdirSync(cwd)).toEqual([])
  })
})
