import { Redis as IORedis } from "ioredis";
import type { Counters } from "./counters";

/**
 * One connection per process to Redis or Valkey over TCP (REDIS_URL). A call waits for at most one
 * reconnection before it fails: every caller has a budget of milliseconds and a policy for a Redis
 * that does not answer (failure-policy.ts), so nothing queues up behind an outage. Calls made in one
 * tick travel in one write (auto-pipelining), as the REST client's do in one request.
 */
export function createTcpClient(url: string, counters?: Counters): IORedis {
  const client = new IORedis(url, {
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(100 * attempt, 2_000),
    enableAutoPipelining: true,
    connectionName: "optstuff",
  });
  // Counted, not thrown: the callers' budgets and fail-open policies answer for a lost connection.
  client.on("error", () => counters?.increment("redis_connection_errors"));
  return client;
}
