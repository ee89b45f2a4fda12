// Rules (issue 28): the conditions of a campaign's paths, checked at save, compiled for the click path and
// explained for the simulator and the click lookup. Pure: no store, no routes, no side effects at import.
export {
  CONDITION_SCHEMAS, ConditionInput, ConditionSchema, ConditionsInput, ConditionsSchema, CONNECTION_TYPES, DAYS, DEVICES, GroupSchema,
  LEAF_TYPES, MAX_CONDITIONS, MAX_PATHS, MAX_REGEX_LENGTH, MAX_VALUE_LENGTH, MAX_VALUES, PARAM_OPS, VERSION_OPS,
  type Condition, type ConditionType, type GroupCondition, type LeafCondition, type RuleDevice,
} from './model'
export { checkConditions } from './check'
export { compileConditions, explain, fieldsUsed, type Explanation, type Predicate, type RuleContext, type RuleQuery } from './compile'
export { compilePath, firstMatch, tracePaths, type CompiledPath, type PathAction, type PathActionType, type PathSpec, type PathTrace } from './paths'
export { ZoneClock } from './clock'
