// The operator's own source and network templates (issue 29, docs/templates.md). The built-in registry lives
// in the code (src/templates/sources.ts, networks.ts); only imported templates are stored, one row each.
import { primaryKey, text } from 'drizzle-orm/sqlite-core'
import { table, ms } from '../table'

export const customTemplates = table('custom_templates', {
  /** 'source' | 'network'. */
  kind: text('kind', { enum: ['source', 'network'] }).notNull(),
  /** The template's slug (custom-…), unique per kind. */
  id: text('id').notNull(),
  /** The template as imported and checked (JSON). */
  body: text('body').notNull(),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
}, (t) => [primaryKey({ columns: [t.kind, t.id] })])
