// `svc call TOOL --args JSON` (issue 29: every feature is a verb the CLI reaches too): a real child process
// calls a real server's /mcp with the agent token in SVC_TOKEN, prints the tool's JSON answer, and says the
// server's refusal on stderr with exit 1 (scope, unknown tool, bad arguments); usage errors exit 2.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { tmpdir } from 'node:os'
import { startServer, type TestServer } from '../helpers/server'
import { SVC } from '../helpers/cli'
import { SERVER_TIMEOUT_MS } from '../tracking/seed'

let s: TestServer
let token = ''

/** The CLI as a child process, awaited (the server runs in this process: a synchronous spawn would block it). */
async function call(args: string[], env: Record<string, string> = { SVC_TOKEN: token }): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn([...SVC, 'call', ...args], { cwd: tmpdir(), env: { PATH: process.env.PATH ?? '', ...env }, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  return { code, out, err }
}

beforeAll(async () => {
  s = await startServer()
  token = (await s.api('POST', '/admin/api/tokens', { name: 'cli', scopes: ['offers:read', 'offers:write', 'campaigns:read'] })).body.token
}, SERVER_TIMEOUT_MS)
afterAll(() => s.destroy())

test('a tool call prints its JSON answer; what it wrote is what the admin API reads', async () => {
  const made = await call(['create_offer', '--url', s.base, '--args', JSON.stringify({ name: 'CLI offer', slug: 'cli-offer', url: 'https://o.example/?c={click_id}', cap: { metric: 'clicks', limit: 3 } })])
  expect(made.err).toBe('')
  expect(made.code).toBe(0)
  const offer = JSON.parse(made.out)
  expect(offer).toMatchObject({ name: 'CLI offer', cap: { metric: 'clicks', limit: 3, period: 'day' } })
  expect((await s.api('GET', `/admin/api/offers/${offer.id}`)).body).toEqual(offer)
  await s.api('POST', '/admin/api/campaigns', { name: 'c', slug: 'cli-c', offer_id: offer.id })
  const caps = await call(['list_caps', `--url=${s.base}`, '--args', '{"state":"ok"}'])
  expect(caps.code).toBe(0)
  expect(JSON.parse(caps.out).caps).toEqual([expect.objectContaining({ key: `o${offer.id}`, count: 0, limit: 3, state: 'ok' })])
}, 30_000)

test("refusals are the server's words on stderr with exit 1; usage errors exit 2", async () => {
  // Seven child processes, independent of each other: started together, so the test's time is about one
  // start-up of the CLI rather than seven in a row (one after another it took 12-17 s, and over 30 s once on
  // a loaded CI machine).
  const [scope, invalid, unknown, noToken, badToken, badArgs, noTool] = await Promise.all([
    call(['create_source', '--url', s.base, '--args', '{"name":"x"}']),
    call(['create_offer', '--url', s.base, '--args', '{"name":"x","slug":"x","url":"https://x.example/","cap":{"metric":"leads","limit":1}}']),
    call(['no_such_tool', '--url', s.base]),
    call(['list_caps', '--url', s.base], {}),
    call(['list_caps', '--url', s.base], { SVC_TOKEN: 'svc_ap_not-a-token' }),
    call(['list_caps', '--url', s.base, '--args', '[1]']),
    call([]),
  ])
  expect(scope.code).toBe(1)
  expect(scope.out).toBe('')
  expect(scope.err).toContain('sources:write')
  expect(invalid.code).toBe(1)
  expect(invalid.err).toContain('cap.metric: must be one of clicks, conversions')
  expect(unknown.code).toBe(1)
  expect(unknown.err).toContain('no_such_tool')
  expect(noToken.code).toBe(1)
  expect(noToken.err).toContain('SVC_TOKEN')
  expect(badToken.code).toBe(1)
  expect(badToken.err).toStartWith('error: 401')
  expect(badArgs.code).toBe(2)
  expect(badArgs.err).toContain('--args must be a JSON object')
  expect(noTool.code).toBe(2)
  expect(noTool.err).toContain('missing TOOL')
}, 60_000)
