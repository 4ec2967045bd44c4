import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * One config, three projects: `vitest run --project unit|integration|browser` (scripts/test.mjs runs
 * them in that order and prints one summary line). The alias is declared once and inherited.
 */
export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) } },
  test: {
    environment: "node",
    env: {
      // @aws-sdk/core's switch (emitWarningIfUnsupportedVersion) for its warning that releases after
      // January 2027 need Node 22: the README says so once; each test process would print it again.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    },
    // What test loggers kept is printed only for a test that failed (tests/support/test-log.ts).
    setupFiles: ["tests/support/log-on-failure.ts"],
    // Printed by `npm test -- --coverage`; never a gate (CI leaves it out: it costs 15 % of a pass).
    coverage: {
      provider: "v8",
      include: ["src/**/*.ts", "src/**/*.tsx", "packages/client/src/**/*.ts"],
      reporter: ["text-summary", "json-summary"],
      reportsDirectory: "artifacts/coverage",
    },
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["tests/unit/**/*.test.ts"], pool: "threads" },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          globalSetup: ["tests/support/global-setup.ts"],
          // Each file boots its own database and servers; two cores only, so run files one at a time.
          pool: "forks",
          maxWorkers: 1,
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          // Debian's Chromium against the built app under `next start` (npm run build first).
          name: "browser",
          include: ["tests/browser/**/*.test.ts"],
          pool: "forks",
          maxWorkers: 1,
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
