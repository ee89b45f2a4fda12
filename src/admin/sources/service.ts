import type { AppContext } from '../../context'
import { conflict, notFound } from '../../lib/errors'
import { optionalUrlTemplate, requiredText } from '../../lib/fields'
import type { SourceInput, SourceRow } from './model'
import { campaignUsingSource, deleteSource, findSource, insertSource, updateSource } from './queries'

function fields(input: SourceInput): Partial<Pick<SourceRow, 'name' | 'postbackUrl'>> {
  const out: Partial<Pick<SourceRow, 'name' | 'postbackUrl'>> = {}
  if (input.name !== undefined) out.name = requiredText(input.name, 'name')
  if (input.postback_url !== undefined) out.postbackUrl = optionalUrlTemplate(input.postback_url, 'postback_url')
  return out
}

export function getSourceOrThrow(ctx: AppContext, id: number): SourceRow {
  const row = findSource(ctx.database.db, id)
  if (!row) throw notFound('source not found')
  return row
}

export function createSource(ctx: AppContext, input: SourceInput): SourceRow {
  const f = fields({ ...input, name: input.name ?? '' })
  const now = Date.now()
  const row = insertSource(ctx.database.db, { name: f.name!, postbackUrl: f.postbackUrl ?? null, createdAt: now, updatedAt: now })
  ctx.events.committed('catalog.changed', { entity: 'source', id: row.id, action: 'created' })
  return row
}

export function patchSource(ctx: AppContext, id: number, input: SourceInput): SourceRow {
  getSourceOrThrow(ctx, id)
  const row = updateSource(ctx.database.db, id, { ...fields(input), updatedAt: Date.now() })
  if (!row) throw notFound('source not found')
  ctx.events.committed('catalog.changed', { entity: 'source', id, action: 'updated' })
  return row
}

export function removeSource(ctx: AppContext, id: number): void {
  const db = ctx.database.db
  ctx.database.raw.transaction(() => {
    getSourceOrThrow(ctx, id)
    const user = campaignUsingSource(db, id)
    if (user) throw conflict(`source is used by campaign "${user.slug}" (id ${user.id})`)
    deleteSource(db, id)
  })()
  ctx.events.committed('catalog.changed', { entity: 'source', id, action: 'deleted' })
}
