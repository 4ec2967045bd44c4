import type { Services } from "./services";

export interface HealthReport {
  status: "ok" | "unavailable";
  checks?: Record<string, { ok: boolean; latencyMs?: number; error?: string }>;
}

const CHECK_TIMEOUT_MS = 2000;

/** Readiness: each dependency answers a trivial query within a budget. Errors are named, never detailed. */
export async function checkHealth(getServices: () => Promise<Services>): Promise<HealthReport> {
  const started = performance.now();
  try {
    const services = await withTimeout(getServices());
    await withTimeout(services.database.ping());
    const database = { ok: true, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
    return { status: "ok", checks: { database } };
  } catch (error) {
    const message = error instanceof TimeoutError ? "timeout" : "unreachable";
    return { status: "unavailable", checks: { database: { ok: false, error: message } } };
  }
}

class TimeoutError extends Error {}

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError()), CHECK_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
