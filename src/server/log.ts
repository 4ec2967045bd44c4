/** Structured JSON log lines. Secrets never go through here: callers pass ids, not keys. */
export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function createLogger(minimum: LogLevel = "info", write: (line: string) => void = defaultWrite): Logger {
  return {
    log(level, message, fields) {
      if (rank[level] < rank[minimum]) return;
      write(JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }));
    },
  };
}

function defaultWrite(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** For errors in fields: name, message and the chain of causes, never a full object dump. */
export function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: String(error) };
  const described: Record<string, unknown> = { error: `${error.name}: ${error.message}` };
  if (error.cause !== undefined) described.cause = describeError(error.cause);
  return described;
}

/**
 * Wraps a logger so that a repeated event (same key) is written at most once per interval, with the
 * number of occurrences suppressed since the last line. During an outage every request fails the same
 * way: one line per request would drown the log, while the counters keep the exact numbers.
 */
export function createSampledLogger(logger: Logger, intervalMs = 10_000, now: () => number = Date.now) {
  const last = new Map<string, { at: number; suppressed: number }>();
  return function logSampled(key: string, level: LogLevel, message: string, fields?: Record<string, unknown>): void {
    const seen = last.get(key);
    if (seen && now() - seen.at < intervalMs) {
      seen.suppressed += 1;
      return;
    }
    last.set(key, { at: now(), suppressed: 0 });
    logger.log(level, message, { ...fields, ...(seen?.suppressed ? { suppressedSinceLast: seen.suppressed } : {}) });
  };
}

export type SampledLog = ReturnType<typeof createSampledLogger>;
