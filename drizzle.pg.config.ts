import { defineConfig } from 'drizzle-kit';

// The PostgreSQL migrations, generated from src/db/postgres/schema.ts — which is derived from the
// SQLite description in src/db/sqlite/schema.ts (docs/decisions/025-postgres-schema.md).
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/postgres/schema.ts',
  out: './src/db/postgres/migrations',
});
