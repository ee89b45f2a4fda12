import { defineConfig } from 'drizzle-kit'

// Postgres migrations, generated from their own schema into their own folder (SQLite's stay in drizzle/).
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/pg-schema/index.ts',
  out: './drizzle-pg',
})
