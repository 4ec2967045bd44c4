import type { Database } from "@/server/db/client";
import { BUCKET_MS, type FlushOptions } from "@/server/usage/flush-usage-buffer";
import { cronRunState } from "./cron-runs";
import type { SchedulerOptions } from "./schedule";
import type { MeteringFreshness } from "@/server/usage/metering-freshness";

/**
 * Worst case from a request to usage_record: a request at the very start of a minute waits for its
 * minute to end and the safety lag to pass, then for the next run (runs start `flushOffsetMs` past each
 * multiple of `flushEveryMs`); the flush's own duration (milliseconds) comes on top. Exact for any
 * period: it tries each minute of one cycle of the two.
 */
export function meteringDelayMs(
  schedule: Pick<SchedulerOptions, "flushEveryMs" | "flushOffsetMs">,
  flush: Pick<FlushOptions, "safetyLagMs">,
): number {
  const every = schedule.flushEveryMs;
  const cycle = (every / gcd(every, BUCKET_MS)) * BUCKET_MS;
  let worst = 0;
  for (let minute = 0; minute < cycle; minute += BUCKET_MS) {
    const ready = minute + BUCKET_MS + flush.safetyLagMs;
    const wait = (((schedule.flushOffsetMs - ready) % every) + every) % every;
    worst = Math.max(worst, ready + wait - minute);
  }
  return worst;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

export async function meteringFreshness(
  db: Database,
  schedule: SchedulerOptions | null,
  flush: FlushOptions,
): Promise<MeteringFreshness> {
  const state = await cronRunState(db, "flush-usage-buffer");
  return {
    meteredUpTo: state.lastSuccessAt,
    lastFlushFailed: state.lastError !== null,
    appearsWithinSeconds: schedule ? Math.ceil(meteringDelayMs(schedule, flush) / 1000) : null,
  };
}
