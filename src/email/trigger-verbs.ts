// Email triggers over every surface (section email): offer_id + target_list_id + active. Every write
// announces email-triggers.changed, so each instance's trigger table reloads.
import { Type as t } from '@sinclair/typebox'
import type { EventBus } from '../lib/event-bus'
import { notFound } from '../lib/errors'
import { Int } from '../lib/fields'
import { iso } from '../lib/time'
import { defineVerb } from '../lib/verb'
import { IdInput, listPage, PageInput, withId } from '../lib/verb-inputs'
import type { TriggerRow, TriggerStore, TriggerValues } from './store/triggers'

export const TriggerCreate = t.Object({
  offer_id: Int({ minimum: 1, description: 'conversions of this offer fire the trigger' }),
  target_list_id: Int({ minimum: 1, description: 'the email list the buyer joins' }),
  active: t.Optional(t.Boolean({ default: true })),
})
export const TriggerPatch = t.Partial(TriggerCreate)

export const TriggerRecord = t.Object({
  id: Int(),
  offer_id: Int(),
  target_list_id: Int(),
  active: t.Boolean(),
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
})

export const renderTrigger = (r: TriggerRow): typeof TriggerRecord.static => ({
  id: r.id, offer_id: r.offerId, target_list_id: r.targetListId, active: r.active, created_at: iso(r.createdAt), updated_at: iso(r.updatedAt),
})

function values(input: Partial<typeof TriggerCreate.static>): Partial<TriggerValues> {
  const out: Partial<TriggerValues> = {}
  if (input.offer_id !== undefined) out.offerId = input.offer_id
  if (input.target_list_id !== undefined) out.targetListId = input.target_list_id
  if (input.active !== undefined) out.active = input.active
  return out
}

export function triggerVerbs({ store, events }: { store: TriggerStore; events: EventBus }) {
  const changed = () => events.committed('email-triggers.changed', {})
  return {
    list: defineVerb({
      name: 'email.triggers.list', summary: 'List email triggers', permission: 'email:read', input: PageInput,
      run: (_actor, input) => listPage(input, (page) => store.list(page)),
    }),
    get: defineVerb({
      name: 'email.triggers.get', summary: 'Get an email trigger', permission: 'email:read', input: IdInput,
      async run(_actor, { id }) {
        const row = await store.find(id)
        if (!row) throw notFound('email trigger not found')
        return row
      },
    }),
    create: defineVerb({
      name: 'email.triggers.create', summary: "Create an email trigger: a conversion of the offer enrols the buyer in the list", permission: 'email:write',
      input: TriggerCreate,
      async run(_actor, input) {
        const row = await store.create({ offerId: input.offer_id, targetListId: input.target_list_id, active: input.active ?? true })
        changed()
        return row
      },
    }),
    update: defineVerb({
      name: 'email.triggers.update', summary: 'Change an email trigger', permission: 'email:write', input: withId(TriggerPatch),
      async run(_actor, { id, ...input }) {
        const row = await store.update(id, values(input))
        changed()
        return row
      },
    }),
    delete: defineVerb({
      name: 'email.triggers.delete', summary: 'Delete an email trigger', permission: 'email:write', input: IdInput,
      async run(_actor, { id }) {
        await store.remove(id)
        changed()
        return { ok: true as const }
      },
    }),
  }
}

export type TriggerVerbs = ReturnType<typeof triggerVerbs>
