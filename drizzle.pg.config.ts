import { defineConfig } from 'drizzle-kit'

// Postgres migrations, in their own folder (SQLite's stay in drizzle/). The schema is the Postgres side of the
// one definition of each table (src/db/schema, built by src/db/table.ts); src/db/pg-schema/index.ts exports it.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/pg-schema/index.ts',
  out: './drizzle-pg',
})
