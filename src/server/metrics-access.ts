import type { Env } from "@/env";
import { loadMetricsToken } from "@/server/config/secrets";

/**
 * Who may read /api/metrics: nobody (404), or a bearer token's holder. Never anyone: the counters
 * (every tenant's traffic, cache tiers, failures) are not for the public, and a reverse proxy in front
 * of the embedded default's loopback makes them so.
 */
export type MetricsAccess = "off" | { token: string };

/** Off in production until a token is set, or when told `off`; elsewhere a generated token (loadMetricsToken). */
export function metricsAccessOf(env: Env): MetricsAccess {
  const token = loadMetricsToken(env);
  return token === null ? "off" : { token };
}
