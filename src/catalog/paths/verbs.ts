// Rule sets: saved conditions that paths of several campaigns share. A change reaches every campaign using
// it through catalog.changed (the routing table is rebuilt; other instances hear it over LISTEN/NOTIFY).
import { crudVerbs } from '../../lib/verb-inputs'
import { announce, type CatalogDeps } from '../shared'
import { parseRuleSet, RuleSetCreate, RuleSetPatch } from './model'

export function ruleSetVerbs({ store, events }: CatalogDeps) {
  return crudVerbs({
    name: 'catalog.rule_sets',
    what: 'rule set',
    permissions: { read: 'campaigns:read', write: 'campaigns:write' },
    summaries: {
      list: 'List rule sets (saved targeting conditions) with the campaigns using each',
      get: 'Get a rule set',
      create: 'Save targeting conditions as a rule set that campaign paths can use',
      update: 'Change a rule set (applies to every campaign path using it)',
      delete: 'Delete a rule set (conflict while a campaign path uses it)',
    },
    inputs: { create: RuleSetCreate, patch: RuleSetPatch },
    list: (page) => store.listRuleSets(page),
    find: (id) => store.findRuleSet(id),
    create: (input) => {
      const v = parseRuleSet({ ...input, name: input.name ?? '', conditions: input.conditions ?? [] })
      return store.createRuleSet({ name: v.name!, conditions: v.conditions! })
    },
    update: (id, patch) => store.updateRuleSet(id, parseRuleSet(patch)),
    delete: (id) => store.deleteRuleSet(id),
    announce: (id, action) => announce(events, 'rule_set', id, action),
  })
}
