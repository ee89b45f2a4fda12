import type { AppContext } from '../../context'
import { invalid, conflict, notFound } from '../../lib/errors'
import { isUniqueViolation } from '../../db/errors'
import { optionalUrlTemplate, requiredText, slug } from '../../lib/fields'
import { MAX_HTML, type LandingInput, type LandingRow } from './model'
import { campaignUsingLanding, deleteLanding, findLanding, insertLanding, landingSlugTaken, updateLanding } from './queries'

type Fields = Partial<Pick<LandingRow, 'name' | 'slug' | 'html' | 'url' | 'emailListId'>>

function html(value: unknown): string | null {
  if (value === null || value === undefined) return null
  if (typeof value !== 'string') throw invalid('html: must be a string or null')
  if (value.length > MAX_HTML) throw invalid(`html: must be at most ${MAX_HTML} characters`)
  return value.trim() === '' ? null : value
}

function fields(input: LandingInput): Fields {
  const out: Fields = {}
  if (input.name !== undefined) out.name = requiredText(input.name, 'name')
  if (input.slug !== undefined) out.slug = slug(input.slug)
  if (input.html !== undefined) out.html = html(input.html)
  if (input.url !== undefined) out.url = optionalUrlTemplate(input.url, 'url')
  if (input.email_list_id !== undefined) {
    const v = input.email_list_id
    if (v !== null && (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)) throw invalid('email_list_id: must be a positive integer or null')
    out.emailListId = v
  }
  return out
}

/** A landing is either a hosted page (html) or an external one (url); with neither, /lp/:slug has nothing to serve. */
function needsContent(html: string | null, url: string | null) {
  if (html === null && url === null) throw invalid('html: a landing needs html or url')
}

const slugTaken = (s: string) => conflict(`slug: "${s}" is already used by another landing`)

export function getLandingOrThrow(ctx: AppContext, id: number): LandingRow {
  const row = findLanding(ctx.database.db, id)
  if (!row) throw notFound('landing not found')
  return row
}

export function createLanding(ctx: AppContext, input: LandingInput): LandingRow {
  const f = fields({ ...input, name: input.name ?? '', slug: input.slug ?? '' })
  needsContent(f.html ?? null, f.url ?? null)
  const db = ctx.database.db
  if (landingSlugTaken(db, f.slug!)) throw slugTaken(f.slug!)
  const now = Date.now()
  let row: LandingRow
  try {
    row = insertLanding(db, {
      name: f.name!, slug: f.slug!, html: f.html ?? null, url: f.url ?? null, emailListId: f.emailListId ?? null, createdAt: now, updatedAt: now,
    })
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTaken(f.slug!)
    throw err
  }
  ctx.events.committed('catalog.changed', { entity: 'landing', id: row.id, action: 'created' })
  return row
}

export function patchLanding(ctx: AppContext, id: number, input: LandingInput): LandingRow {
  const f = fields(input)
  const db = ctx.database.db
  const current = getLandingOrThrow(ctx, id)
  needsContent(f.html !== undefined ? f.html : current.html, f.url !== undefined ? f.url : current.url)
  if (f.slug !== undefined && landingSlugTaken(db, f.slug, id)) throw slugTaken(f.slug)
  let row: LandingRow | undefined
  try {
    row = updateLanding(db, id, { ...f, updatedAt: Date.now() })
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTaken(f.slug!)
    throw err
  }
  if (!row) throw notFound('landing not found')
  ctx.events.committed('catalog.changed', { entity: 'landing', id, action: 'updated' })
  return row
}

export function removeLanding(ctx: AppContext, id: number): void {
  const db = ctx.database.db
  ctx.database.raw.transaction(() => {
    getLandingOrThrow(ctx, id)
    const user = campaignUsingLanding(db, id)
    if (user) throw conflict(`landing is used by campaign "${user.slug}" (id ${user.id})`)
    deleteLanding(db, id)
  })()
  ctx.events.committed('catalog.changed', { entity: 'landing', id, action: 'deleted' })
}
