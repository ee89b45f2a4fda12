// Audit rows older than audit_retention_days are pruned (at start, then hourly); newer ones stay.
import { expect, test } from 'bun:test'
import { startServer } from '../helpers/server'
import { testDb } from '../helpers/db'

test('audit rows past audit_retention_days are pruned; recent ones stay', async () => {
  let s = await startServer()
  try {
    expect((await s.api('GET', '/admin/api/settings')).body.audit_retention_days).toBe(90)
    const day = 86_400_000
    const db = testDb(s)
    for (const [tool, age] of [['old_call', 40 * day], ['recent_call', 10 * day]] as const) {
      await db.run(
        "INSERT INTO agent_audit (token_id, token_name, surface, tool, arguments, outcome, error, duration_ms, ip, created_at) VALUES (1, 't', 'mcp', $tool, '{}', 'ok', NULL, 1, '127.0.0.1', $at)",
        { tool, at: Date.now() - age },
      )
    }
    expect((await s.api('PUT', '/admin/api/settings', { audit_retention_days: 30 })).status).toBe(200)
    await s.stop()
    s = await startServer({}, s.dataDir)
    let tools: string[] = []
    for (let i = 0; i < 50; i++) {
      tools = (await s.api('GET', '/admin/api/audit')).body.items.map((r: { tool: string }) => r.tool)
      if (!tools.includes('old_call')) break
      await Bun.sleep(50)
    }
    expect(tools).toEqual(['recent_call'])
  } finally {
    await s.destroy()
  }
})
