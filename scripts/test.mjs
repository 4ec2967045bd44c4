// The README test command: unit tests, then integration tests, then one plain summary line.
// Integration tests use embedded PGlite unless TEST_DATABASE_URL points at a PostgreSQL server
// (each test file creates and drops its own database there). Arguments: the projects to run
// (vitest.config.ts: unit, integration, browser), and --coverage to print each one's coverage.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";

const args = process.argv.slice(2);
const coverage = args.includes("--coverage");
const named = args.filter((arg) => arg !== "--coverage");
const suites = named.length > 0 ? named : ["unit", "integration"];
mkdirSync("artifacts", { recursive: true });

let passed = 0;
let failed = 0;
let broken = false;
for (const suite of suites) {
  const report = `artifacts/vitest-${suite}.json`;
  rmSync(report, { force: true });
  const run = spawnSync(
    process.execPath,
    [
      "node_modules/vitest/vitest.mjs",
      "run",
      "--project",
      suite,
      ...(coverage ? ["--coverage.enabled", `--coverage.reportsDirectory=artifacts/coverage-${suite}`] : []),
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${report}`,
    ],
    { stdio: "inherit" },
  );
  try {
    const result = JSON.parse(readFileSync(report, "utf8"));
    passed += result.numPassedTests;
    failed += result.numFailedTests;
    // A file that fails to load has no failed tests but fails the suite.
    if (run.status !== 0 && result.numFailedTests === 0) broken = true;
  } catch {
    broken = true;
  }
}
if (broken) failed += 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
