// Password recovery from the shell: `svc user passwd` and `svc user add` take the password from piped
// stdin or a prompt without echo (never only argv), and a new password ends that user's sessions.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { existsSync } from 'node:fs'
import { engineEnv, startServer, OWNER, type TestServer } from '../helpers/server'
import { SVC, svc } from '../helpers/cli'
import { redactUrl } from '../../src/db/pg/client'

// Each test runs svc as child processes (about 0.5 s each alone, several times that on a loaded machine).
setDefaultTimeout(60_000) // CLI child processes: several times slower on a loaded CI machine

let s: TestServer
// Behind a "proxy", so each login below comes from its own address and the login limiter stays out of the way.
// The commands reach the server's database: its data directory on SQLite, SVC_DATABASE_URL on Postgres.
let cliEnv: Record<string, string>
/** Where the commands say they looked: the SQLite file, or the database URL (password redacted). */
let database: { dir: string; file: string }
beforeAll(async () => {
  s = await startServer({ SVC_TRUST_PROXY: '1' })
  const engine = await engineEnv(s.dataDir)
  cliEnv = { SVC_DATA_DIR: s.dataDir, SVC_SECRET: 'test-master-secret-0123456789abcdef', ...engine }
  const url = engine.SVC_DATABASE_URL
  database = url ? { dir: redactUrl(url), file: redactUrl(url) } : { dir: s.dataDir, file: `${s.dataDir}/svc.db` }
})
let nextIp = 1
afterAll(() => s.destroy())

const env = () => cliEnv

async function loginStatus(email: string, password: string): Promise<number> {
  const res = await fetch(`${s.base}/admin/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${nextIp++}` },
    body: JSON.stringify({ email, password }),
  })
  return res.status
}

const me = async (cookie: string) => (await fetch(`${s.base}/admin/api/me`, { headers: { cookie } })).status

describe('svc user passwd', () => {
  test('sets the password piped on stdin, beside the running server, and signs out that user only', async () => {
    const owner = await s.login()
    const other = await s.api('POST', '/admin/api/users', { email: 'ops@example.com', password: 'ops-password-1' })
    expect(other.status).toBe(201)
    const opsCookie = await s.login('ops@example.com', 'ops-password-1')
    expect(await me(opsCookie)).toBe(200)

    const r = svc(['user', 'passwd', '--email', 'OPS@example.com'], env(), { stdin: 'a new ops password\n' })
    expect(r).toEqual({ code: 0, out: 'password of ops@example.com changed; their sessions are signed out\n', err: '' })

    expect(await me(opsCookie)).toBe(401)
    expect(await me(owner)).toBe(200)
    expect(await loginStatus('ops@example.com', 'a new ops password')).toBe(200)
    expect(await loginStatus('ops@example.com', 'ops-password-1')).toBe(401)
  })

  test('an unknown email, an empty stdin and a short password change nothing', async () => {
    const unknown = svc(['user', 'passwd', '--email', 'nobody@example.com'], env(), { stdin: 'whatever-long\n' })
    expect(unknown).toMatchObject({ code: 1, err: `error: no user with email nobody@example.com in ${database.file}\n` })
    const empty = svc(['user', 'passwd', '--email', OWNER.email], env(), { stdin: '' })
    expect(empty).toMatchObject({ code: 1, err: 'error: no password on stdin: pipe it in, or run in a terminal to be prompted\n' })
    const short = svc(['user', 'passwd', '--email', OWNER.email], env(), { stdin: 'short\n' })
    expect(short.code).toBe(1)
    expect(short.err).toStartWith('error: password')
    expect(await loginStatus(OWNER.email, OWNER.password)).toBe(200)
  })

  // A real terminal (script(1) gives the child a pty): the prompt appears on it and the typed password does not.
  test.skipIf(!existsSync('/usr/bin/script'))('prompts twice without echo on a terminal', async () => {
    const cmd = [...SVC, 'user', 'passwd', '--email', OWNER.email].map((a) => `'${a}'`).join(' ')
    const p = Bun.spawn(['script', '-qec', cmd, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', ...env() },
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const reader = p.stdout.getReader()
    let seen = ''
    const waitFor = async (text: string) => {
      while (!seen.includes(text)) {
        const { value, done } = await reader.read()
        if (done) throw new Error(`ended before "${text}": ${seen}`)
        seen += new TextDecoder().decode(value)
      }
    }
    await waitFor('New password: ')
    p.stdin.write('typed-secret-1\r')
    p.stdin.flush()
    await waitFor('Repeat it: ')
    p.stdin.write('typed-secret-1\r')
    p.stdin.flush()
    await waitFor('signed out')
    expect(await p.exited).toBe(0)
    expect(seen).not.toContain('typed-secret-1')
    expect(await loginStatus(OWNER.email, 'typed-secret-1')).toBe(200)
  }, 30_000)
})

describe('svc user add', () => {
  test('takes the password from stdin when --password is not given', async () => {
    const r = svc(['user', 'add', '--email', 'piped@example.com'], env(), { stdin: 'piped-password-1\n' })
    expect(r.code).toBe(0)
    expect(r.out).toBe(`created user ${(r.out.match(/user (\d+)/) ?? [])[1]} piped@example.com in ${database.dir}\n`)
    expect(await loginStatus('piped@example.com', 'piped-password-1')).toBe(200)
  })

  test('without --password and with nothing piped it refuses (it never creates a user without one)', () => {
    const r = svc(['user', 'add', '--email', 'nopass@example.com'], env(), { stdin: '' })
    expect(r).toMatchObject({ code: 1, err: 'error: no password on stdin: pipe it in, or run in a terminal to be prompted\n' })
  })
})
