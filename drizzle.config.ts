import { defineConfig } from "drizzle-kit";

// Migrations are generated from the schema and committed; the app applies them at start.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/server/db/schema/index.ts",
  out: "./drizzle",
});
