// GET/PUT /admin/api/settings: thin routes over the settings verbs.
import { Elysia, t } from 'elysia'
import type { AppContext } from '../context'
import { adminGuard } from '../http/admin-guard'
import { adminActor, invoke } from '../lib/verb'
import { MASK } from './store'
import type { SettingsVerbs } from './verbs'

const tags = ['settings']

const SettingsView = t.Record(t.String(), t.Unknown(), {
  description: `every settings key; secrets read "${MASK}" when set and null when not; plus the read-only "warnings" (array of strings, e.g. while postback_secret is unset)`,
})

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
      body: t.Unknown({
        description: `partial object of settings; unknown keys are rejected ("warnings" is read-only and ignored); writing "${MASK}" back leaves a secret unchanged; null clears`,
      }),
      response: SettingsView,
      detail: { tags, summary: verbs.update.summary },
    })
