/**
 * Structured JSON log lines. Callers pass ids, not keys; and because errors can carry secrets all the
 * same (a failed drizzle query puts its parameters, sealed secrets, session tokens and password hashes
 * among them, into its message), every line is redacted here, whoever wrote it.
 */
import { isAppError } from "@/server/errors";

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function createLogger(minimum: LogLevel = "info", write: (line: string) => void = defaultWrite): Logger {
  return {
    log(level, message, fields) {
      if (rank[level] < rank[minimum]) return;
      write(JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }, redactValue));
    },
  };
}

function defaultWrite(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * For errors in fields: name, message, stack frames and the chain of causes, never a full object dump
 * (a DrizzleQueryError keeps its parameters in enumerable properties), all redacted.
 */
export function describeError(error: unknown): Record<string, unknown> {
  // A refusal or an upstream failure (an AppError other than 500) is an answer the code meant to give:
  // its code says what happened, and a stack per request during an outage would drown the log.
  return describe(error, 0, !(isAppError(error) && error.status !== 500));
}

function describe(error: unknown, depth: number, withStack: boolean): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: redactText(String(error)) };
  const described: Record<string, unknown> = { error: redactText(`${error.name}: ${error.message}`) };
  const stack = withStack ? stackFrames(error) : undefined;
  if (stack) described.stack = stack;
  if (error.cause !== undefined && depth < 5) described.cause = describe(error.cause, depth + 1, withStack);
  return described;
}

/**
 * The frames only: V8's stack starts with `name: message`, and a message can hold what the redaction
 * of messages cuts (drizzle's `\nparams: …` would take every frame after it along).
 */
function stackFrames(error: Error): string | undefined {
  const frames = (error.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line));
  return frames.length > 0 ? redactText(frames.map((line) => line.trim()).join("\n")) : undefined;
}

/** Field names whose values are never written, whatever they look like. */
const SECRET_FIELD = /token|secret|password|passwd|hash|cookie|authorization|^sig$|signature/i;

/**
 * Secrets by shape, for text that reaches a line by any way: drizzle's parameter list, values
 * PostgreSQL quotes in its messages, and the shapes of our secrets. UUIDs (request ids), public keys
 * and ordinary words stay readable: the opaque-token rule needs 32 letters, digits, `-` or `_` in a row.
 */
const redactions: Array<[RegExp, string]> = [
  // drizzle: `Failed query: <sql>\nparams: <values>`; the SQL holds placeholders only.
  [/(\nparams: )[\s\S]*$/, "$1[redacted]"],
  // PostgreSQL: `invalid input syntax for type uuid: "<value>"`, `… for enum team_role: "<value>"`.
  [/((?:for type|for enum|for encoding) [^:"]+: )"(?:[^"]|"")*"/g, '$1"[redacted]"'],
  // PostgreSQL details: `Key (token)=(<value>) already exists.`
  [/(Key \([^)]*\)=\()[\s\S]*?(\) (?:already exists|is not present|conflicts))/g, "$1[redacted]$2"],
  // Sealed API-key secrets: v1.{kid}.{iv}.{ciphertext}.{tag}.
  [/\bv\d+\.[\w-]{8}\.[\w-]+\.[\w-]*\.[\w-]+/g, "[redacted sealed secret]"],
  [/\bsk_[\w-]{16,}/g, "sk_[redacted]"],
  // scrypt password hashes (salt:key, hex) and any long opaque token (session tokens, digests).
  [/\b[0-9a-f]{16,}:[0-9a-f]{32,}\b/gi, "[redacted hash]"],
  // base64url tokens carry - and _ (invitation tokens, generated secrets): a run of 32 or more such
  // characters, unless it is a UUID (request ids stay readable).
  [/(?<![\w-])(?![0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![\w-]))[\w-]{32,}/gi, "[redacted]"],
];

/**
 * What every redaction above needs somewhere in the text: a string without any of it (most values of a
 * request's line: formats, statuses, URLs, operations) is returned as it is, and so is a lone UUID (ids),
 * without running the seven patterns (27 of a line's 35 µs).
 */
const mayHoldSecret = /\nparams: |for (?:type|enum|encoding) |Key \(|\bv\d+\.|[\w-]{16}/;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function redactText(text: string): string {
  if (!mayHoldSecret.test(text) || uuid.test(text)) return text;
  return redactions.reduce((current, [pattern, replacement]) => current.replace(pattern, replacement), text);
}

/** JSON.stringify replacer: errors become their description, strings are redacted, secret fields dropped. */
function redactValue(this: unknown, key: string, value: unknown): unknown {
  if (key !== "" && SECRET_FIELD.test(key) && value !== null && typeof value !== "object") return "[redacted]";
  if (value instanceof Error) return describeError(value);
  return typeof value === "string" ? redactText(value) : value;
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

/**
 * Where a route logs a failure when its services (and so the configured logger) could not be built:
 * the same redacted lines on stdout, so even that 500 leaves its stack.
 */
export const bootLogger: Logger = createLogger();
