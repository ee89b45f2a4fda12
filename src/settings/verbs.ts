// Settings verbs. Writing settings announces `settings.changed` so every cache built from them (traffic
// quality, retention…) follows, whichever surface made the change.
import { Type } from '@sinclair/typebox'
import type { EventBus } from '../lib/event-bus'
import { invalid } from '../lib/errors'
import { defineVerb, type VerbSet } from '../lib/verb'
import type { SettingsStore } from './store'

export function settingsVerbs(deps: { settings: SettingsStore; events: EventBus }) {
  const { settings, events } = deps
  return {
    get: defineVerb({
      name: 'settings.get',
      summary: 'Every setting, secrets masked',
      permission: 'settings:read',
      input: Type.Object({}),
      run: async () => settings.masked(),
    }),
    update: defineVerb({
      name: 'settings.update',
      summary: 'Change some settings',
      permission: 'settings:write',
      // Unknown keeps the object as sent: the registry must see what the client wrote (unknown keys are refused there).
      input: Type.Unknown(),
      async run(_actor, input) {
        if (input === null || typeof input !== 'object' || Array.isArray(input)) throw invalid('body: must be a JSON object of settings')
        const partial = input as Record<string, unknown>
        await settings.update(partial)
        events.committed('settings.changed', { keys: Object.keys(partial) })
        return settings.masked()
      },
    }),
  } satisfies VerbSet
}

export type SettingsVerbs = ReturnType<typeof settingsVerbs>
