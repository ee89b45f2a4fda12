// Postgres schema (issue 8), mirroring ../schema table for table; see clicks.ts for what is SQLite-only.
export * from './users'
export * from './settings'
export * from './campaigns'
export * from './clicks'
export * from './conversions'
export * from './jobs'
export * from './stats'
export * from './email'
