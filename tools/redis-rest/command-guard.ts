// Commands this endpoint refuses. All HTTP requests share one Redis connection (per node), so a
// command that changes that connection's state would leak into every later request of every client.
import type { RedisCommand } from "./protocol";

const REFUSED = {
  SUBSCRIBE: "pub/sub needs a streaming connection",
  PSUBSCRIBE: "pub/sub needs a streaming connection",
  SSUBSCRIBE: "pub/sub needs a streaming connection",
  UNSUBSCRIBE: "pub/sub needs a streaming connection",
  PUNSUBSCRIBE: "pub/sub needs a streaming connection",
  SUNSUBSCRIBE: "pub/sub needs a streaming connection",
  MONITOR: "it takes over the shared connection",
  SELECT: "it would switch the database for every client",
  HELLO: "the endpoint speaks RESP2 to Redis",
  AUTH: "the endpoint authenticates with its token",
  RESET: "it resets the shared connection",
  QUIT: "it closes the shared connection",
  MULTI: "send transactions to /multi-exec",
  EXEC: "send transactions to /multi-exec",
  DISCARD: "send transactions to /multi-exec",
  WATCH: "optimistic locking needs a connection of its own",
  UNWATCH: "optimistic locking needs a connection of its own",
} satisfies Record<string, string>;

/** The error to answer instead of running the command, or undefined when it may run. */
export function refusal([name]: RedisCommand): string | undefined {
  const upper = name.toUpperCase();
  const reason = (REFUSED as Record<string, string>)[upper];
  return reason === undefined ? undefined : `ERR ${upper} is not supported by this endpoint: ${reason}`;
}
