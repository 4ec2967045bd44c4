// Helpers for driving the Upstash-compatible endpoint with the real clients and with raw HTTP.
import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import type { RedisRestServer } from "../../../tools/redis-rest/server";
import { clearOfWindowEdge } from "../../support/clock";

export const TOKEN = "bridge-test-token";

/** The product's client as it is configured for tests: no telemetry, no retries (a dead endpoint fails fast). */
export function upstashClient(endpoint: RedisRestServer, options: { autoPipelining?: boolean; token?: string } = {}) {
  return new Redis({
    url: endpoint.url,
    token: options.token ?? TOKEN,
    enableTelemetry: false,
    retry: false,
    // @upstash/redis 1.39 turns automatic pipelining ON by default; tests choose explicitly.
    enableAutoPipelining: options.autoPipelining ?? false,
  });
}

/** One POST as the client would send it, returning status and parsed body. */
export async function post(
  endpoint: RedisRestServer,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${endpoint.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

export function slidingWindowLimiter(redis: Redis, prefix: string) {
  // No ephemeral cache: every call must reach Redis for the counts to prove anything.
  return new Ratelimit({
    redis,
    limiter: Ratelimit.slidingWindow(5, "10 s"),
    prefix,
    ephemeralCache: false,
    analytics: false,
    enableProtection: false,
  });
}

/** 20 concurrent `limit()` calls against a 5-per-10-s window, then `getRemaining` and `resetUsedTokens`. */
export async function exerciseRatelimit(limiter: Ratelimit, identifier: string) {
  await clearOfWindowEdge(10_000, 1_500);
  const results = await Promise.all(Array.from({ length: 20 }, () => limiter.limit(identifier)));
  const remainingAfterBurst = await limiter.getRemaining(identifier);
  await limiter.resetUsedTokens(identifier);
  const remainingAfterReset = await limiter.getRemaining(identifier);
  const afterReset = await limiter.limit(identifier);
  return { successes: results.filter((r) => r.success).length, remainingAfterBurst, remainingAfterReset, afterReset };
}
