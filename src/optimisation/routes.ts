// HTTP shape of split tests and auto-weights: parse, invoke the verb, answer.
import { Elysia, t } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { firstParam, idParams, parseId } from '../http/collection'
import { invalid } from '../lib/errors'
import { adminActor, invoke } from '../lib/verb'
import { AutoWeightsInput, type optimisationVerbs } from './verbs'

type Verbs = ReturnType<typeof optimisationVerbs>

/** A number from the query string, or 400 naming the parameter. */
function numberParam(q: Record<string, unknown>, name: string, integer = false): number | undefined {
  const v = firstParam(q[name])
  if (v === undefined || v === '') return undefined
  const n = Number(v)
  if (!/^-?\d+(\.\d+)?$/.test(v.trim()) || !Number.isFinite(n) || (integer && !Number.isInteger(n))) throw invalid(`${name}: must be ${integer ? 'a whole number' : 'a number'}`)
  return n
}

const splitTestQuery = t.Object({
  kind: t.String({ description: 'offers | landings' }),
  path_id: t.Optional(t.String({ description: "a targeting path's rotation; absent: the default rotation" })),
  window: t.Optional(t.String({ description: '"72h", "7d" (default 7d, at most 90d)' })),
  from: t.Optional(t.String()), to: t.Optional(t.String()),
  metric: t.Optional(t.String({ description: 'cr (default) | epc' })), currency: t.Optional(t.String()),
  min_clicks: t.Optional(t.String()), min_conversions: t.Optional(t.String()), win_probability: t.Optional(t.String()), tie_pct: t.Optional(t.String()),
}, { additionalProperties: true })

export function optimisationRoutes(ctx: AppContext, verbs: Verbs) {
  return new Elysia({ name: 'optimisation' })
    .use(adminGuard(ctx))
    .get('/admin/api/campaigns/:id/split-test', ({ admin, params, query }) => {
      const q = query as Record<string, unknown>
      const pathId = firstParam(q.path_id)
      const input = {
        id: parseId(params.id, 'campaign'),
        kind: firstParam(q.kind) as 'offers',
        path_id: pathId === undefined || pathId === '' || pathId === 'null' ? null : numberParam(q, 'path_id', true),
        window: firstParam(q.window), from: firstParam(q.from), to: firstParam(q.to),
        metric: firstParam(q.metric) as 'cr' | undefined, currency: firstParam(q.currency),
        min_clicks: numberParam(q, 'min_clicks', true), min_conversions: numberParam(q, 'min_conversions', true),
        win_probability: numberParam(q, 'win_probability'), tie_pct: numberParam(q, 'tie_pct'),
      }
      // Absent parameters stay absent (the schema's optional fields).
      for (const k of Object.keys(input) as Array<keyof typeof input>) if (input[k] === undefined) delete input[k]
      return invoke(verbs.splitTest, adminActor(admin), input) as never
    }, {
      permission: 'campaigns:read', params: idParams, query: splitTestQuery,
      detail: { tags: ['campaigns'], summary: verbs.splitTest.summary },
    })
    .get('/admin/api/campaigns/:id/auto-weights', ({ admin, params }) =>
      invoke(verbs.getAutoWeights, adminActor(admin), { id: parseId(params.id, 'campaign') }) as never, {
      permission: 'campaigns:read', params: idParams,
      detail: { tags: ['campaigns'], summary: verbs.getAutoWeights.summary },
    })
    .put('/admin/api/campaigns/:id/auto-weights', ({ admin, params, body }) =>
      invoke(verbs.putAutoWeights, adminActor(admin), { ...(body as typeof AutoWeightsInput.static), id: parseId(params.id, 'campaign') }) as never, {
      permission: 'campaigns:write', params: idParams, body: t.Omit(AutoWeightsInput, ['id']),
      detail: { tags: ['campaigns'], summary: verbs.putAutoWeights.summary },
    })
    .get('/admin/api/campaigns/:id/weight-changes', ({ admin, params, query }) => {
      const q = query as Record<string, unknown>
      const input: { id: number; limit?: string; cursor?: string } = { id: parseId(params.id, 'campaign') }
      const limit = firstParam(q.limit), cursor = firstParam(q.cursor)
      if (limit !== undefined) input.limit = limit
      if (cursor !== undefined) input.cursor = cursor
      return invoke(verbs.weightChanges, adminActor(admin), input) as never
    }, {
      permission: 'campaigns:read', params: idParams,
      detail: { tags: ['campaigns'], summary: verbs.weightChanges.summary },
    })
}
