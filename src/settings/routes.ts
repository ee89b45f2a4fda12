// GET/PUT /admin/api/settings: thin routes over the settings verbs.
import { Elysia, t } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { adminActor, invoke } from '../lib/verb'
import { lenientBody } from '../http/api-docs'
import { SETTINGS } from './registry'
import { MASK } from './store'
import type { SettingsVerbs } from './verbs'

const tags = ['settings']

const SettingsView = t.Record(t.String(), t.Unknown(), {
  description: `every settings key; secrets read "${MASK}" when set and null when not; plus the read-only "warnings" (array of strings, e.g. while postback_secret is unset)`,
})

/** Each key's JSON type, read off the registry (its default's type), so new keys are documented as they are added. */
function documentedKeys(): Record<string, unknown> {
  const properties: Record<string, unknown> = {}
  for (const [key, def] of Object.entries(SETTINGS)) {
    const d: unknown = def.default
    properties[key] = def.secret
      ? { type: ['string', 'null'], description: `secret: write "${MASK}" to keep it, null to clear` }
      : Array.isArray(d) ? { type: 'array', items: { type: 'string' }, default: d }
        : typeof d === 'boolean' ? { type: 'boolean', default: d }
          : typeof d === 'number' ? { type: 'integer', default: d }
            : { type: ['string', 'null'], default: d }
  }
  return properties
}

export const settingsRoutes = (ctx: AppContext, verbs: SettingsVerbs) =>
  new Elysia({ name: 'admin-settings' })
    .use(adminGuard(ctx))
    .get('/admin/api/settings', ({ admin }) => invoke(verbs.get, adminActor(admin), {}), {
      permission: 'settings:read',
      response: SettingsView,
      detail: { tags, summary: verbs.get.summary },
    })
    // t.Unknown keeps the body as sent: an Object schema would silently drop unknown keys, and
    // a Record schema turns arrays into objects; the registry must see what the client wrote.
    .put('/admin/api/settings', ({ admin, body }) => invoke(verbs.update, adminActor(admin), body), {
      permission: 'settings:write',
      body: lenientBody(
        `partial object of settings; unknown keys are rejected ("warnings" is read-only and ignored); writing "${MASK}" back leaves a secret unchanged; null clears`,
        { type: 'object', properties: documentedKeys(), additionalProperties: false },
      ),
      response: SettingsView,
      detail: { tags, summary: verbs.update.summary },
    })
