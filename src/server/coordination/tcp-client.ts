import { Redis as IORedis } from "ioredis";
import type { Counters } from "./counters";

/** No call outlives this, answered or not: a host gone without a reset must not pile calls up in memory. */
const COMMAND_TIMEOUT_MS = 2_000;

/**
 * One connection per process to Redis or Valkey over TCP (REDIS_URL). Every caller has a budget of
 * milliseconds and a policy for a Redis that does not answer (failure-policy.ts); underneath, a call
 * waits for at most one reconnection and never longer than COMMAND_TIMEOUT_MS, and a call the lost
 * connection left unanswered is not sent again on the next one (it may have run: a reservation or an
 * increment would count twice). Calls made in one tick travel in one write (auto-pipelining), as the
 * REST client's do in one request.
 */
export function createTcpClient(url: string, counters?: Counters): IORedis {
  const client = new IORedis(url, {
    maxRetriesPerRequest: 1,
    commandTimeout: COMMAND_TIMEOUT_MS,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (attempt) => Math.min(100 * attempt, 2_000),
    enableAutoPipelining: true,
    connectionName: "optstuff",
  });
  // Counted, not thrown: the callers' budgets and fail-open policies answer for a lost connection.
  client.on("error", () => counters?.increment("redis_connection_errors"));
  return client;
}

/** QUIT, waiting for the calls in flight up to COMMAND_TIMEOUT_MS; the connection is dropped after that either way. */
export async function closeTcpClient(client: IORedis): Promise<void> {
  const timer = new Promise((resolve) => setTimeout(resolve, COMMAND_TIMEOUT_MS).unref());
  await Promise.race([client.quit().catch(() => undefined), timer]);
  client.disconnect();
}
