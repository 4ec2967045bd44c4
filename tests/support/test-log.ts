import { createLogger, type LogLevel, type Logger } from "@/server/log";

/**
 * The log of the code under test, kept instead of printed. A passing run prints only what a reader
 * needs: a test that provokes an error asserts its line (`lines`), and the lines written during a test
 * that fails are printed after it (tests/support/log-on-failure.ts), where they help.
 */
export interface TestLogger extends Logger {
  /** Every line written so far, parsed (the JSON the production logger writes), oldest first. */
  readonly lines: ReadonlyArray<LoggedLine>;
}

export type LoggedLine = Record<string, unknown> & { time: string; level: LogLevel; message: string };

// On globalThis: the setup file and the test file must see one list, whatever module instances they get.
const HELD = Symbol.for("optstuff.tests.held-log-lines");
const held = (): string[] => ((globalThis as { [HELD]?: string[] })[HELD] ??= []);

/** The production logger (same fields, same redaction), writing to memory. */
export function createTestLogger(minimum: LogLevel = "info"): TestLogger {
  const lines: LoggedLine[] = [];
  const logger = createLogger(minimum, (line) => {
    lines.push(JSON.parse(line) as LoggedLine);
    held().push(line);
  });
  return { log: logger.log, lines };
}

/** The lines written since the last call (log-on-failure.ts prints them when their test failed). */
export function takeHeldLines(): string[] {
  return held().splice(0);
}
