import { Redis } from "@upstash/redis";

export interface UpstashSettings {
  url: string;
  token: string;
}

/**
 * One client per process. No retries: the client's default retries a dead endpoint for seconds,
 * while every caller here has a budget of milliseconds (failure-policy.ts). Values stay raw strings
 * (no automatic JSON parsing) so what is stored is exactly what was written. Commands issued in the
 * same tick travel in one pipeline request (auto-pipelining), which is how after-response work costs
 * one round trip.
 */
export function createUpstashClient(settings: UpstashSettings): Redis {
  return new Redis({
    url: settings.url,
    token: settings.token,
    retry: false,
    automaticDeserialization: false,
    enableAutoPipelining: true,
    enableTelemetry: false,
    readYourWrites: false,
  });
}
