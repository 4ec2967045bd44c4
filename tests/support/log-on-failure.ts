import { afterAll, afterEach } from "vitest";
import { takeHeldLines } from "./test-log";

/**
 * A setup file (vitest.config.ts): prints what test loggers (test-log.ts) kept during a test only when
 * that test failed, and what they kept outside any test only when a file-level hook failed. Lines of a
 * test that passed are dropped: the errors it provoked on purpose are asserted there, not printed.
 */
afterEach(({ task }) => {
  const lines = takeHeldLines();
  if (task.result?.state === "fail") print(`log lines of the failed test "${task.name}"`, lines);
});

// vitest reads the first parameter as the fixtures it needs (none): an empty pattern, as it requires.
// eslint-disable-next-line no-empty-pattern
afterAll(({}, suite) => {
  const lines = takeHeldLines();
  if ((suite.result?.errors?.length ?? 0) > 0) print(`log lines of ${suite.name}, outside its tests`, lines);
});

function print(title: string, lines: string[]): void {
  if (lines.length > 0) process.stdout.write(`${title}:\n${lines.join("\n")}\n`);
}
