// The answer format follows the client's Accept: JSON when it ranks application/json first (what the SDK
// clients send), one SSE stream ending with the answer when it ranks text/event-stream first.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { prefersEventStream } from '../../src/agent/mcp/server'

let s: TestServer
let token: string
beforeAll(async () => {
  s = await startServer()
  token = (await s.api('POST', '/admin/api/tokens', { name: 'sse', scopes: ['campaigns:read'] })).body.token
})
afterAll(() => s.destroy())

const post = (accept: string) => fetch(`${s.base}/mcp`, {
  method: 'POST',
  headers: { authorization: `Bearer ${token}`, accept, 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
})

test('application/json first: one JSON object', async () => {
  const r = await post('application/json, text/event-stream')
  expect(r.status).toBe(200)
  expect(r.headers.get('content-type')).toStartWith('application/json')
  const body = await r.json() as { id: number; result: { tools: Array<{ name: string }> } }
  expect(body.id).toBe(7)
  expect(body.result.tools.map((t) => t.name)).toEqual(['list_campaigns', 'get_campaign', 'list_rule_sets', 'get_rule_set', 'simulate_campaign', 'get_split_test', 'get_auto_weights', 'list_weight_changes', 'list_cost_updates'])
})

test('text/event-stream first: an SSE stream whose message is the answer, then the stream ends', async () => {
  const r = await post('text/event-stream, application/json')
  expect(r.status).toBe(200)
  expect(r.headers.get('content-type')).toStartWith('text/event-stream')
  const text = await r.text() // resolves only once the server ends the stream
  const data = text.split('\n').find((l) => l.startsWith('data: '))!
  const message = JSON.parse(data.slice(6)) as { id: number; result: { tools: unknown[] } }
  expect(message.id).toBe(7)
  expect(message.result.tools).toHaveLength(9)
})

test('q-values decide before order', () => {
  expect(prefersEventStream('application/json;q=0.5, text/event-stream')).toBe(true)
  expect(prefersEventStream('text/event-stream;q=0.2, application/json')).toBe(false)
  expect(prefersEventStream('application/json, text/event-stream')).toBe(false)
  expect(prefersEventStream('text/event-stream, application/json')).toBe(true)
  expect(prefersEventStream(null)).toBe(false)
})
