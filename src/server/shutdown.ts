import type { CronJobs } from "@/server/cron/jobs";
import { describeError, type Logger } from "@/server/log";

/** What a stopping process closes, in the order it must: nothing writes into what was closed before. */
export interface ShutdownParts {
  scheduler: { stop(): Promise<void> };
  requestLog: { drain(): Promise<void> };
  /** The Redis usage buckets' open window (usage-window.ts). */
  usage: { drain(): Promise<void> };
  /** Set when usage is buffered in the database (no shared Redis): all of it is flushed on the way out. */
  flushAll: CronJobs["flushUsage"] | null;
  results: { drain(): Promise<void> } | null;
  closers: Array<{ close(): unknown } | null>;
  database: { close(): Promise<void> };
  /** The shared Redis's connection (over TCP), after everything that writes to it. */
  coordination: { close(): Promise<void> };
  logger: Logger;
}

/**
 * Stops the schedule, drains the request log and the usage window, flushes a database-buffered usage (it survives either way;
 * flushing keeps the dashboard current), waits for result write-backs, then closes the store, transform
 * processes, download thread and source cache, the Redis connection, and the database last.
 */
export async function shutDown(parts: ShutdownParts): Promise<void> {
  await parts.scheduler.stop();
  await Promise.all([parts.requestLog.drain(), parts.usage.drain()]);
  if (parts.flushAll) {
    await parts.flushAll({ safetyLagMs: -60_000, budgetMs: Number.POSITIVE_INFINITY }).catch((error: unknown) => {
      parts.logger.log("error", "usage flush on shutdown failed", describeError(error));
    });
  }
  await parts.results?.drain();
  for (const part of parts.closers) await part?.close();
  await parts.coordination.close();
  await parts.database.close();
}
