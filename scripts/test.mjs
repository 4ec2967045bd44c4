// The README test command: unit tests, then integration tests, then one plain summary line.
// Integration tests use embedded PGlite unless TEST_DATABASE_URL points at a PostgreSQL server
// (each test file creates and drops its own database there). Arguments: the projects to run
// (vitest.config.ts: unit, integration, browser), paths to run only those files of them,
// --coverage to print each one's coverage, and --skip-service-free to leave out the integration files
// that run the same on every machine (tests/support/service-free.mjs), for a second pass with services.
// Suites that need what the machine lacks (redis-server, PostgreSQL, Chromium: tests/support/services.ts)
// skip with the need in their title; the summary counts them and lists each need once, with its files.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { SERVICE_FREE } from "../tests/support/service-free.mjs";

const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg.startsWith("--") && arg !== "--coverage" && arg !== "--skip-service-free");
if (unknown.length > 0) {
  console.error(`test: unknown option ${unknown.join(", ")} (known: --coverage, --skip-service-free)`);
  process.exit(2);
}
const coverage = args.includes("--coverage");
const skipServiceFree = args.includes("--skip-service-free");
// A path (tests/integration/usage) narrows the projects named to its files.
const paths = args.filter((arg) => arg.includes("/"));
const named = args.filter((arg) => !arg.startsWith("--") && !arg.includes("/"));
const suites = named.length > 0 ? named : ["unit", "integration"];
mkdirSync("artifacts", { recursive: true });

let passed = 0;
let failed = 0;
let skipped = 0;
let broken = false;
/** "[needs redis-server: apt-get install redis-server]" → the files whose tests it skipped, with counts. */
const needs = new Map();
/** "file › describe › test" of each failed test, and each file that failed to load, for the summary. */
const failures = [];
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
      ...paths,
      ...(skipServiceFree && suite === "integration" ? SERVICE_FREE.flatMap((file) => ["--exclude", file]) : []),
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
    skipped += result.numPendingTests + result.numTodoTests;
    collectNeeds(result);
    collectFailures(result);
    // A file that fails to load has no failed tests but fails the suite.
    if (run.status !== 0 && result.numFailedTests === 0) broken = true;
  } catch {
    broken = true;
  }
}
if (broken) failed += 1;
// A run that provides every service skips nothing: a skip there is a test that quietly stopped running.
const requireAll = process.env.TEST_REQUIRE_SERVICES === "1";
for (const [need, files] of needs) {
  const count = [...files.values()].reduce((sum, n) => sum + n, 0);
  console.log(`skipped ${count}, ${need.replace(/^\[needs ([^:]+): (.*)\]$/, "needing $1 ($2)")}:`);
  for (const [file, n] of files) console.log(`  ${file} (${n})`);
}
if (requireAll && skipped > 0) {
  console.log(`TEST_REQUIRE_SERVICES=1: ${skipped} test(s) skipped, counted as one failure`);
  failed += 1;
}
// Named again beside the summary, so the tail of a long log says which tests failed.
for (const failure of failures) console.log(`FAILED: ${failure}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);

function collectNeeds(result) {
  for (const file of result.testResults) {
    for (const test of file.assertionResults) {
      if (test.status !== "skipped" && test.status !== "pending" && test.status !== "todo") continue;
      const titles = [...test.ancestorTitles, test.title].join(" ");
      const stated = titles.match(/\[needs [^\]]+\]/g) ?? ["(no reason given in the title)"];
      const name = path.relative(process.cwd(), file.name);
      for (const need of new Set(stated)) {
        const files = needs.get(need) ?? new Map();
        files.set(name, (files.get(name) ?? 0) + 1);
        needs.set(need, files);
      }
    }
  }
}

function collectFailures(result) {
  for (const file of result.testResults) {
    const name = path.relative(process.cwd(), file.name);
    const failedTests = file.assertionResults.filter((test) => test.status === "failed");
    for (const test of failedTests) {
      // Its first line too: the tail of a log is often all that is kept of a run elsewhere.
      const why = String(test.failureMessages?.[0] ?? "")
        .split("\n")[0]
        .slice(0, 400);
      failures.push([name, ...test.ancestorTitles, test.title].join(" › ") + (why ? ` — ${why}` : ""));
    }
    if (file.status === "failed" && failedTests.length === 0) {
      failures.push(`${name} (did not run: ${String(file.message ?? "").split("\n")[0]})`);
    }
  }
}
