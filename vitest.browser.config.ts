import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

// Browser tests drive Debian's Chromium against the built app under `next start` (npm run build first).
export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) } },
  test: {
    include: ["tests/browser/**/*.test.ts"],
    environment: "node",
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
