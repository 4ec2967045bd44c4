// The Upstash REST wire format: what a request body may hold and how a Redis reply is written back.
// See docs in /work/shared/design/platform-facts.md ("The Upstash REST protocol").

/** One Redis command as sent over RESP: the name first, every argument already a string. */
export type RedisCommand = [name: string, ...args: string[]];

/** What one command produced: a reply, or the error Redis (or this endpoint, acting as Redis) gave. */
export type Outcome = { result: unknown } | { error: string };

export type JsonReply = string | number | null | JsonReply[];

/** A body that is not a command list: answered 400 before anything reaches Redis. */
export class InvalidBodyError extends Error {}

/**
 * Accepts `["SET","k","v","EX",60]`. The client serialises numbers and booleans as JSON scalars and
 * objects as JSON text already. `null` arrives too (@upstash/ratelimit's reset script passes `[null]`
 * as its ARGV) and Upstash accepts it, so it becomes the text JSON gives it; an object or array
 * argument is a malformed body rather than a value to guess at.
 */
export function parseCommand(value: unknown): RedisCommand {
  if (!Array.isArray(value) || value.length === 0)
    throw new InvalidBodyError("ERR a command must be a non-empty JSON array");
  const parts = value.map((part: unknown) => {
    if (typeof part === "string") return part;
    if (typeof part === "number" || typeof part === "boolean" || part === null) return String(part);
    throw new InvalidBodyError("ERR command arguments must be JSON strings, numbers or booleans");
  });
  return parts as RedisCommand;
}

/** Accepts `[[…],[…]]` for /pipeline and /multi-exec. */
export function parseCommandList(value: unknown): RedisCommand[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new InvalidBodyError("ERR a pipeline must be a non-empty JSON array of commands");
  return value.map(parseCommand);
}

/**
 * With `Upstash-Encoding: base64` every string at every depth is base64 of its bytes, so values survive
 * JSON whatever they contain; the client decodes each one back. Integers and nulls stay raw JSON.
 * Without the header strings are sent as UTF-8 text, as Upstash does.
 */
export function encodeReply(value: unknown, base64: boolean): JsonReply {
  if (value === null || value === undefined) return null;
  if (typeof value === "number") return value;
  if (Buffer.isBuffer(value)) return base64 ? value.toString("base64") : value.toString("utf8");
  if (typeof value === "string") return base64 ? Buffer.from(value, "utf8").toString("base64") : value;
  if (Array.isArray(value)) return value.map((item) => encodeReply(item, base64));
  // An error nested in an array (a Lua table holding redis.error_reply): JSON has no error type there.
  if (value instanceof Error) return encodeReply(value.message, base64);
  throw new TypeError(`unexpected reply type from Redis: ${typeof value}`);
}

/** The JSON for one pipeline or transaction entry; errors are never base64-encoded. */
export function encodeOutcome(outcome: Outcome, base64: boolean): { result: JsonReply } | { error: string } {
  return "error" in outcome ? { error: outcome.error } : { result: encodeReply(outcome.result, base64) };
}
