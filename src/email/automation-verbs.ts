// Automations over every surface (section email): a list, a name, active, and the messages in order with
// their delays. Every write announces email-automations.changed, so each instance's table reloads.
import { Type as t } from '@sinclair/typebox'
import type { EventBus } from '../lib/event-bus'
import { invalid, notFound } from '../lib/errors'
import { Int, requiredText } from '../lib/fields'
import { iso } from '../lib/time'
import { defineVerb } from '../lib/verb'
import { IdInput, listPage, PageInput, withId } from '../lib/verb-inputs'
import type { AutomationRow, AutomationStep, AutomationStore, AutomationValues } from './store/automations'

const MAX_STEPS = 50
const MAX_DELAY_MINUTES = 366 * 24 * 60
const CONTROL = /[\u0000-\u001f\u007f]/

const Step = t.Object({
  delay_minutes: Int({ minimum: 0, maximum: MAX_DELAY_MINUTES, description: 'after the subscriber joined the list' }),
  subject: t.String({ maxLength: 998, description: 'macros {name} {email} {unsubscribe_url} and custom fields' }),
  text: t.String({ maxLength: 500_000 }),
  html: t.Optional(t.Union([t.String({ maxLength: 500_000 }), t.Null()])),
})

export const AutomationCreate = t.Object({
  list_id: Int({ minimum: 1 }),
  name: t.String({ maxLength: 200 }),
  active: t.Optional(t.Boolean({ default: true })),
  steps: t.Array(Step, { maxItems: MAX_STEPS, description: 'the messages, in the order they are sent' }),
})
export const AutomationPatch = t.Partial(AutomationCreate)

export const AutomationRecord = t.Object({
  id: Int(),
  list_id: Int(),
  name: t.String(),
  active: t.Boolean(),
  steps: t.Array(t.Object({ delay_minutes: Int(), subject: t.String(), text: t.String(), html: t.Union([t.String(), t.Null()]) })),
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
})

export const renderAutomation = (r: AutomationRow): typeof AutomationRecord.static => ({
  id: r.id, list_id: r.listId, name: r.name, active: r.active, steps: r.steps, created_at: iso(r.createdAt), updated_at: iso(r.updatedAt),
})

function steps(input: Array<typeof Step.static>): AutomationStep[] {
  return input.map((s, i) => {
    const subject = requiredText(s.subject, `steps.${i}.subject`, 998)
    if (CONTROL.test(subject)) throw invalid(`steps.${i}.subject: must not contain line breaks or control characters`)
    return { delay_minutes: s.delay_minutes, subject, text: requiredText(s.text, `steps.${i}.text`, 500_000), html: s.html?.trim() ? s.html : null }
  })
}

export function automationVerbs({ store, events }: { store: AutomationStore; events: EventBus }) {
  const changed = () => events.committed('email-automations.changed', {})
  return {
    list: defineVerb({
      name: 'email.automations.list', summary: 'List email automations', permission: 'email:read', input: PageInput,
      run: (_actor, input) => listPage(input, (page) => store.list(page)),
    }),
    get: defineVerb({
      name: 'email.automations.get', summary: 'Get an email automation', permission: 'email:read', input: IdInput,
      async run(_actor, { id }) {
        const row = await store.find(id)
        if (!row) throw notFound('email automation not found')
        return row
      },
    }),
    create: defineVerb({
      name: 'email.automations.create', summary: "Create an automation: messages sent to each new subscriber of the list after their delays",
      permission: 'email:write', input: AutomationCreate,
      async run(_actor, input) {
        const row = await store.create({ listId: input.list_id, name: requiredText(input.name, 'name'), active: input.active ?? true, steps: steps(input.steps) })
        changed()
        return row
      },
    }),
    update: defineVerb({
      name: 'email.automations.update', summary: 'Change an automation (new messages reach subscribers who join from now on)',
      permission: 'email:write', input: withId(AutomationPatch),
      async run(_actor, { id, ...input }) {
        const c: Partial<AutomationValues> = {}
        if (input.list_id !== undefined) c.listId = input.list_id
        if (input.name !== undefined) c.name = requiredText(input.name, 'name')
        if (input.active !== undefined) c.active = input.active
        if (input.steps !== undefined) c.steps = steps(input.steps)
        const row = await store.update(id, c)
        changed()
        return row
      },
    }),
    delete: defineVerb({
      name: 'email.automations.delete', summary: 'Delete an automation (its pending messages are not sent)', permission: 'email:write', input: IdInput,
      async run(_actor, { id }) {
        await store.remove(id)
        changed()
        return { ok: true as const }
      },
    }),
  }
}

export type AutomationVerbs = ReturnType<typeof automationVerbs>
