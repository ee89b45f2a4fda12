import { Elysia, t } from 'elysia'
import type { AppContext } from '../../context'
import { adminGuard } from '../../http/admin-guard'
import { invalid } from '../../lib/errors'
import { MASK } from '../../settings/store'

const tags = ['settings']

const SettingsView = t.Record(t.String(), t.Unknown(), {
  description: `every settings key; secrets read "${MASK}" when set and null when not`,
})

export const settingsRoutes = (ctx: AppContext) =>
  new Elysia({ name: 'admin-settings' })
    .use(adminGuard(ctx))
    .get('/admin/api/settings', () => ctx.settings.masked(), {
      permission: 'settings:read',
      response: SettingsView,
      detail: { tags, summary: 'Every setting, secrets masked' },
    })
    .put('/admin/api/settings', ({ body }) => {
      // t.Unknown keeps the body as sent: an Object schema would silently drop unknown keys, and
      // a Record schema turns arrays into objects; the registry must see what the client wrote.
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('body: must be a JSON object of settings')
      ctx.settings.update(body as Record<string, unknown>)
      ctx.events.committed('settings.changed', { keys: Object.keys(body as object) })
      return ctx.settings.masked()
    }, {
      permission: 'settings:write',
      body: t.Unknown({
        description: `partial object of settings; unknown keys are rejected; writing "${MASK}" back leaves a secret unchanged; null clears`,
      }),
      response: SettingsView,
      detail: { tags, summary: 'Change some settings' },
    })
