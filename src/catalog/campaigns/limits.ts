// A campaign's rotation limits, shared by its own rotation and its paths' rotations.
export const MAX_LINKS = 100
export const DEFAULT_WEIGHT = 100
export const MAX_WEIGHT = 10000
