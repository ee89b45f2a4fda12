// Settings verbs. Writing settings announces `settings.changed` so every cache built from them (traffic
// quality, retention…) follows, whichever surface made the change.
import { Type } from '@sinclair/typebox'
import type { EventBus } from '../lib/event-bus'
import { invalid } from '../lib/errors'
import { defineVerb, type VerbSet } from '../lib/verb'
import type { SettingsStore } from './store'
import { settingsWarnings, WARNINGS_KEY, type MoneyFacts, type WarningConfig } from './warnings'

export function settingsVerbs(deps: { settings: SettingsStore; events: EventBus; config: WarningConfig; money?: () => Promise<MoneyFacts> }) {
  const { settings, events, config, money } = deps
  /** Every key, secrets masked, plus the read-only list of warnings (see warnings.ts). */
  const view = async () => ({ ...settings.masked(), [WARNINGS_KEY]: settingsWarnings(settings, config, money ? await money() : null) })
  return {
    get: defineVerb({
      name: 'settings.get',
      summary: 'Every setting, secrets masked',
      permission: 'settings:read',
      input: Type.Object({}),
      run: async () => view(),
    }),
    update: defineVerb({
      name: 'settings.update',
      summary: 'Change some settings',
      permission: 'settings:write',
      // Unknown keeps the object as sent: the registry must see what the client wrote (unknown keys are refused there).
      input: Type.Unknown(),
      async run(_actor, input) {
        if (input === null || typeof input !== 'object' || Array.isArray(input)) throw invalid('body: must be a JSON object of settings')
        // The read-only warnings key comes back when a client PUTs the view it read: ignore it.
        const { [WARNINGS_KEY]: _readOnly, ...partial } = input as Record<string, unknown>
        await settings.update(partial)
        events.committed('settings.changed', { keys: Object.keys(partial) })
        return view()
      },
    }),
  } satisfies VerbSet
}

export type SettingsVerbs = ReturnType<typeof settingsVerbs>
