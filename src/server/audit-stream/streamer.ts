import { and, eq, isNull, lt, lte, notInArray, or, sql } from "drizzle-orm";
import { auditStreams } from "@/server/db/schema";
import { describeError } from "@/server/log";
import type { AuditArchive } from "./archive";
import { nextBatch } from "./batch";
import { deliverBatch, type StreamerDeps } from "./deliver";

export type { StreamerDeps };

/** After a failed batch: 1 min, 5 min, 30 min, then hourly. The cursor holds the place: nothing is dropped. */
export const STREAM_RETRY_S = [60, 300, 1800, 3600] as const;
/** Batches one stream sends per run before the next stream's turn (a long backlog holds up nobody). */
export const BATCHES_PER_TURN = 10;
const LEASE_MS = 2 * 60_000;

export interface StreamRunReport {
  ok: boolean;
  batches: number;
  entries: number;
  /** Streams whose batch failed this run (each retried after its backoff). */
  failing: number;
}

export interface AuditStreamer {
  readonly archive: AuditArchive | null;
  /** Sends what every due stream has after its cursor, batch by batch, within a time budget. */
  streamDue(options?: { budgetMs?: number }): Promise<StreamRunReport>;
}

type Stream = typeof auditStreams.$inferSelect;

export function createAuditStreamer(deps: StreamerDeps): AuditStreamer {
  return {
    archive: deps.archive,
    async streamDue({ budgetMs = 40_000 } = {}) {
      const started = performance.now();
      // Another batch is begun only while a whole attempt still fits (the cron route has 60 s in all).
      const fits = () => performance.now() - started + deps.post.timeoutMs <= budgetMs;
      const report: StreamRunReport = { ok: true, batches: 0, entries: 0, failing: 0 };
      const taken: string[] = [];
      while (fits()) {
        const stream = await claimNext(deps, taken);
        if (!stream) break;
        taken.push(stream.teamId);
        try {
          await sendTurn(deps, stream, fits, report);
        } catch (error) {
          report.ok = false;
          deps.logger.log("error", "an audit stream's turn failed", { team: stream.teamId, ...describeError(error) });
        }
      }
      return report;
    },
  };
}

/**
 * Up to BATCHES_PER_TURN batches of one stream, each after the last went. Every write is made only if
 * the stream is still as it was claimed (its cursor, and its generation, which an admin's change moves): a
 * stream sent elsewhere or moved meanwhile is not written over, and its next turn starts from the change.
 */
async function sendTurn(deps: StreamerDeps, stream: Stream, fits: () => boolean, report: StreamRunReport) {
  let cursor = stream.cursor;
  const unchanged = () =>
    and(
      eq(auditStreams.teamId, stream.teamId),
      eq(auditStreams.cursor, cursor),
      eq(auditStreams.generation, stream.generation),
    );
  for (let turn = 0; turn < BATCHES_PER_TURN && fits(); turn++) {
    const batch = await nextBatch(deps.db, stream.teamId, cursor);
    if (!batch) break;
    const error = await deliverBatch(deps, stream, batch);
    const now = deps.now();
    if (error) {
      report.failing++;
      const delay = STREAM_RETRY_S[Math.min(stream.failures, STREAM_RETRY_S.length - 1)]!;
      await deps.db
        .update(auditStreams)
        .set({
          failures: sql`${auditStreams.failures} + 1`,
          lastError: error,
          nextAttemptAt: new Date(now.getTime() + delay * 1000),
        })
        .where(and(unchanged(), eq(auditStreams.leasedUntil, stream.leasedUntil!)));
      break;
    }
    // Moved only from where this batch began: an admin's change meanwhile wins, and is sent from next.
    const moved = await deps.db
      .update(auditStreams)
      .set({ cursor: batch.lastId, failures: 0, lastError: null, lastSentAt: now })
      .where(unchanged())
      .returning({ cursor: auditStreams.cursor });
    report.batches++;
    report.entries += batch.entries;
    if (moved.length === 0) break;
    cursor = batch.lastId;
  }
  // Let go (whether or not the stream changed meanwhile: an admin's change is tried at once), and to
  // the back of the queue: the streams that waited longest go first in the next run.
  await deps.db
    .update(auditStreams)
    .set({
      leasedUntil: null,
      nextAttemptAt: sql`greatest(${auditStreams.nextAttemptAt}, ${deps.now().toISOString()}::timestamptz)`,
    })
    .where(and(eq(auditStreams.teamId, stream.teamId), eq(auditStreams.leasedUntil, stream.leasedUntil!)));
}

/**
 * The stream waiting longest that is due and not held, leased to this sender. A stream to a deleted
 * webhook waits (its admin chooses another); a lease that ended is a sender that died, and is taken over.
 */
async function claimNext(deps: StreamerDeps, taken: string[]): Promise<Stream | null> {
  const now = deps.now();
  const next = deps.db
    .select({ teamId: auditStreams.teamId })
    .from(auditStreams)
    .where(
      and(
        lte(auditStreams.nextAttemptAt, now),
        or(isNull(auditStreams.leasedUntil), lt(auditStreams.leasedUntil, now)),
        or(eq(auditStreams.destination, "bucket"), sql`${auditStreams.webhookId} is not null`),
        taken.length > 0 ? notInArray(auditStreams.teamId, taken) : undefined,
      ),
    )
    .orderBy(auditStreams.nextAttemptAt)
    .limit(1)
    .for("update", { skipLocked: true });
  const [claimed] = await deps.db
    .update(auditStreams)
    .set({ leasedUntil: new Date(now.getTime() + LEASE_MS) })
    .where(sql`${auditStreams.teamId} in (${next})`)
    .returning();
  return claimed ?? null;
}
