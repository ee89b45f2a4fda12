// Starts a real svc server on a random port with its SQLite files in a fresh temp dir, or, under
// `npm run test:pg` (SVC_TEST_ENGINE=postgres), on a fresh database of the throwaway Postgres cluster.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config'
import { createServer, type SvcServer } from '../../src/server'
import { freshPgUrl, onPostgres } from './pg'

export const OWNER = { email: 'owner@example.com', password: 'owner-password-1' }

export interface TestServer {
  base: string
  port: number
  dataDir: string
  server: SvcServer
  ctx: SvcServer['ctx']
  /** Graceful stop (finishes in-flight work). The data dir stays so a test can restart on it. */
  stop(): Promise<void>
  /** Stops and deletes the data dir. */
  destroy(): Promise<void>
  /** POST /admin/api/login; returns the Cookie header value to replay. */
  login(email?: string, password?: string): Promise<string>
  /** JSON request to the admin API with the owner's session (logs in once, lazily). */
  api(method: string, path: string, body?: unknown, cookie?: string): Promise<ApiResponse>
}

export interface ApiResponse {
  status: number
  headers: Headers
  body: any
  text: string
}

export const TEST_ENV: Record<string, string> = {
  HOST: '127.0.0.1',
  PORT: '0',
  SVC_SECRET: 'test-master-secret-0123456789abcdef',
  SVC_ADMIN_EMAIL: OWNER.email,
  SVC_ADMIN_PASSWORD: OWNER.password,
  SVC_JOBS_POLL_MS: '50',
  SVC_JOBS_BACKOFF_MS: '50',
  SVC_JOBS_BACKOFF_MAX_MS: '400',
  SVC_JOBS_TIMEOUT_MS: '2000',
}

/**
 * On Postgres a test's "data directory" stands for its database: a restart on the same dataDir (durability
 * tests) reopens the same database.
 */
const pgDatabaseOf = new Map<string, string>()

/** The engine's env for a data directory: nothing on SQLite, SVC_DATABASE_URL on Postgres. */
export async function engineEnv(dataDir: string): Promise<Record<string, string>> {
  if (!onPostgres) return {}
  let url = pgDatabaseOf.get(dataDir)
  if (!url) pgDatabaseOf.set(dataDir, (url = await freshPgUrl()))
  return { SVC_DATABASE_URL: url }
}

export async function startServer(env: Record<string, string> = {}, dataDir?: string): Promise<TestServer> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'svc-test-'))
  const server = await createServer(loadConfig({ ...TEST_ENV, ...(await engineEnv(dir)), ...env, SVC_DATA_DIR: dir }))
  const { port } = await server.listen()
  const base = `http://127.0.0.1:${port}`
  let ownerCookie: string | null = null

  const login = async (email = OWNER.email, password = OWNER.password) => {
    const res = await fetch(`${base}/admin/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    })
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`)
    const set = res.headers.getSetCookie().find((c) => c.startsWith('svc_admin_session='))
    if (!set) throw new Error('login set no svc_admin_session cookie')
    return set.split(';')[0]!
  }

  const api = async (method: string, path: string, body?: unknown, cookie?: string): Promise<ApiResponse> => {
    if (cookie === undefined) cookie = ownerCookie ??= await login()
    const headers: Record<string, string> = {}
    if (cookie) headers.cookie = cookie
    // Writes say they are JSON even without a body, as the admin API asks of every write (CSRF).
    if (body !== undefined || (method !== 'GET' && method !== 'HEAD')) headers['content-type'] = 'application/json'
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      redirect: 'manual',
    })
    const text = await res.text()
    let parsed: unknown = undefined
    try { parsed = JSON.parse(text) } catch { parsed = undefined }
    return { status: res.status, headers: res.headers, body: parsed, text }
  }

  const stop = () => server.stop()
  return {
    base, port, dataDir: dir, server, ctx: server.ctx, stop, login, api,
    async destroy() {
      await stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** GET without following redirects. */
export function get(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { redirect: 'manual', headers })
}
