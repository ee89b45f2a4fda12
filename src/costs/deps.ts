// What the cost updates use of other features, through their index.ts (docs/architecture.md, "Layers").
export { Zone } from '../reports'
export { PARAM_NAME, SUB_COLUMNS, type ClickCosts, type CostScope } from '../tracking'
