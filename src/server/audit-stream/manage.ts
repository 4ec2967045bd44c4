import { and, count, eq, gt, gte, inArray, max, min, sql } from "drizzle-orm";
import {
  auditStreamInputSchema,
  auditStreamResetSchema,
  type AuditStreamInput,
  type AuditStreamReset,
  WAITING_COUNTED,
} from "@/lib/schemas/audit-stream";
import type { Database } from "@/server/db/client";
import { auditLog, auditStreams, teamWebhooks } from "@/server/db/schema";
import { AppError } from "@/server/errors";
import type { TenancyDeps } from "@/server/tenancy/deps";
// The team row, then its audit entries (every entry begun before has committed): the order a
// webhook's change takes them in, whose deletion's cascade reaches the stream.
import { lockTeam } from "@/server/webhooks/manage";
import type { AuditArchive } from "./archive";

const DAY_MS = 86_400_000;
/** Moves of a team's cursor in 24 hours, at most. */
export const MOVES_PER_DAY = 10;

type ManageDeps = Pick<TenancyDeps, "db" | "audit" | "now"> & { archive: AuditArchive | null };

export interface AuditStreamView {
  destination: "webhook" | "bucket";
  webhookId: string | null;
  webhookShown: string | null;
  /** The last entry sent (0: none yet) and when it was written. */
  cursor: number;
  cursorAt: Date | null;
  /** Entries after the cursor, counted up to WAITING_COUNTED + 1. */
  waiting: number;
  failures: number;
  lastError: string | null;
  lastSentAt: Date | null;
  nextAttemptAt: Date;
}

export interface AuditStreamStatus {
  stream: AuditStreamView | null;
  /** Where "the bucket" is on this instance, or null when it keeps no results. */
  bucket: { kind: "files" | "s3"; shown: string } | null;
}

export async function auditStreamStatus(
  deps: Pick<ManageDeps, "db" | "archive">,
  teamId: string,
): Promise<AuditStreamStatus> {
  const bucket = deps.archive && { kind: deps.archive.kind, shown: deps.archive.shown };
  const [row] = await deps.db
    .select({ stream: auditStreams, webhookShown: teamWebhooks.urlShown })
    .from(auditStreams)
    .leftJoin(teamWebhooks, eq(teamWebhooks.id, auditStreams.webhookId))
    .where(eq(auditStreams.teamId, teamId));
  if (!row) return { stream: null, bucket };
  const { stream } = row;
  const after = deps.db
    .select({ one: sql`1` })
    .from(auditLog)
    .where(and(eq(auditLog.teamId, teamId), gt(auditLog.id, stream.cursor)))
    .limit(WAITING_COUNTED + 1)
    .as("after");
  const [waiting] = await deps.db.select({ n: count() }).from(after);
  const [at] = await deps.db
    .select({ createdAt: auditLog.createdAt })
    .from(auditLog)
    .where(and(eq(auditLog.teamId, teamId), eq(auditLog.id, stream.cursor)));
  return {
    bucket,
    stream: {
      destination: stream.destination as AuditStreamView["destination"],
      webhookId: stream.webhookId,
      webhookShown: row.webhookShown,
      cursor: stream.cursor,
      cursorAt: at?.createdAt ?? null,
      waiting: waiting?.n ?? 0,
      failures: stream.failures,
      // Such a stream is not tried (nothing to send to): said here, as the sender would.
      lastError:
        stream.destination === "webhook" && !stream.webhookId
          ? "its webhook was deleted: choose another"
          : stream.lastError,
      lastSentAt: stream.lastSentAt,
      nextAttemptAt: stream.nextAttemptAt,
    },
  };
}

/**
 * Sets where the stream goes. A new stream starts after the entries written so far, or before every
 * kept one; changing the destination of one keeps its cursor (what is sent next is what was next).
 */
export async function configureAuditStream(deps: ManageDeps, teamId: string, input: AuditStreamInput): Promise<void> {
  const checked = auditStreamInputSchema.parse(input);
  if (checked.destination === "bucket" && !deps.archive)
    throw new AppError("INVALID_INPUT", {
      field: "destination",
      message: "This instance keeps no results, so it has no bucket to write to",
    });
  await deps.db.transaction(async (tx) => {
    await lockTeam(tx, teamId);
    const webhook = checked.destination === "webhook" ? await signedWebhook(tx, teamId, checked.webhookId!) : null;
    const [before] = await tx.select().from(auditStreams).where(eq(auditStreams.teamId, teamId));
    // The same destination again is a "try now" (no copy made, nothing to write down).
    const same = before && before.destination === checked.destination && before.webhookId === (webhook?.id ?? null);
    if (!same) await refuseTooManyChanges(tx, teamId, deps.now());
    const destination = { destination: checked.destination, webhookId: webhook?.id ?? null };
    const now = deps.now();
    if (before)
      await tx
        .update(auditStreams)
        .set({ ...destination, ...anew(now) })
        .where(eq(auditStreams.teamId, teamId));
    else {
      const cursor = checked.startFrom === "oldest" ? 0 : await lastEntry(tx, teamId);
      await tx.insert(auditStreams).values({ teamId, ...destination, cursor, nextAttemptAt: now });
    }
    if (same) return;
    const shown = (d: { destination: string; webhookShown: string | null }) =>
      d.destination === "bucket" ? "the bucket" : `webhook ${d.webhookShown ?? "(deleted)"}`;
    const beforeShown = before
      ? shown({ destination: before.destination, webhookShown: await urlOf(tx, before) })
      : null;
    const afterShown = shown({ destination: checked.destination, webhookShown: webhook?.urlShown ?? null });
    await deps.audit.record(tx, {
      teamId,
      action: "audit_stream.configured",
      target: { id: teamId, label: "audit stream" },
      changes: {
        destination: { from: beforeShown, to: afterShown },
        // Compared by what it is, not by what is shown: two webhooks of one receiver look alike.
        ...(beforeShown === afterShown && {
          webhookId: { from: before?.webhookId ?? null, to: webhook?.id ?? null },
        }),
        ...(!before && { starts: { from: null, to: checked.startFrom === "oldest" ? "every kept entry" : "now" } }),
      },
      // The receiver the stream leaves hears of it (a SIEM cut off must not just fall silent).
      alsoTell: before?.webhookId,
    });
  });
}

/** Moves the cursor: back to send entries again (at least once: a receiver drops duplicates by id), or past everything. */
export async function resetAuditStream(deps: ManageDeps, teamId: string, input: AuditStreamReset): Promise<number> {
  const checked = auditStreamResetSchema.parse(input);
  const dayStart = checked.to === "day" ? new Date(`${checked.day}T00:00:00.000Z`) : null;
  // A day is UTC: where it is already tomorrow, "today" is a day ahead of the server's.
  if (dayStart && dayStart.getTime() > deps.now().getTime() + DAY_MS)
    throw new AppError("INVALID_INPUT", { field: "day", message: "Choose today or a day before it" });
  return deps.db.transaction(async (tx) => {
    await lockTeam(tx, teamId);
    const [stream] = await tx.select().from(auditStreams).where(eq(auditStreams.teamId, teamId));
    if (!stream) throw new AppError("NOT_FOUND", { message: "The team streams no audit log" });
    await refuseTooManyChanges(tx, teamId, deps.now());
    // "Again from a day" never moves forward: a day after what was sent would skip what waits.
    const cursor =
      checked.to === "oldest"
        ? 0
        : checked.to === "day"
          ? Math.min(stream.cursor, await before(tx, teamId, dayStart!))
          : await lastEntry(tx, teamId);
    const now = deps.now();
    await tx
      .update(auditStreams)
      .set({ cursor, ...anew(now) })
      .where(eq(auditStreams.teamId, teamId));
    await deps.audit.record(tx, {
      teamId,
      action: "audit_stream.cursor_reset",
      target: { id: teamId, label: "audit stream" },
      changes: { cursor: { from: stream.cursor, to: cursor } },
    });
    return cursor;
  });
}

/**
 * Each move back writes the log again (a bucket keeps every copy), and so does a stream started anew
 * from the oldest entry: a team's admins move the cursor or change the destination at most
 * MOVES_PER_DAY times in 24 hours, counted from their own audit entries. Stopping is always allowed.
 */
async function refuseTooManyChanges(tx: Database, teamId: string, now: Date) {
  const since = new Date(now.getTime() - DAY_MS);
  const [moves] = await tx
    .select({ n: count() })
    .from(auditLog)
    .where(
      and(
        eq(auditLog.teamId, teamId),
        gte(auditLog.createdAt, since),
        inArray(auditLog.action, ["audit_stream.cursor_reset", "audit_stream.configured"]),
      ),
    );
  if ((moves?.n ?? 0) >= MOVES_PER_DAY)
    throw new AppError("DASHBOARD_RATE_LIMITED", {
      message: `The audit stream can be changed ${MOVES_PER_DAY} times in 24 hours: try again tomorrow`,
    });
}

/** Stops streaming; what was sent stays where it went. */
export async function removeAuditStream(deps: ManageDeps, teamId: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    await lockTeam(tx, teamId);
    const [gone] = await tx.delete(auditStreams).where(eq(auditStreams.teamId, teamId)).returning();
    if (!gone) throw new AppError("NOT_FOUND", { message: "The team streams no audit log" });
    await deps.audit.record(tx, {
      teamId,
      action: "audit_stream.removed",
      target: { id: teamId, label: "audit stream" },
      alsoTell: gone.webhookId,
    });
  });
}

/** An admin's change: a new generation (a sender's turn in flight writes nothing over it), tried at once. */
const anew = (now: Date) => ({
  generation: sql`${auditStreams.generation} + 1`,
  failures: 0,
  lastError: null,
  nextAttemptAt: now,
  updatedAt: now,
});

/** The id of the team's last entry; 0 when there is none. */
async function lastEntry(tx: Database, teamId: string): Promise<number> {
  const [row] = await tx
    .select({ id: max(auditLog.id) })
    .from(auditLog)
    .where(eq(auditLog.teamId, teamId));
  return row?.id ?? 0;
}

/**
 * Just before the team's first entry written on or after `day`: an entry's time is taken before its
 * id, so one from the day before may follow it, and is sent again too, rather than one of the day left out.
 */
async function before(tx: Database, teamId: string, day: Date): Promise<number> {
  const [row] = await tx
    .select({ id: min(auditLog.id) })
    .from(auditLog)
    .where(and(eq(auditLog.teamId, teamId), gte(auditLog.createdAt, day)));
  return row?.id ? row.id - 1 : lastEntry(tx, teamId);
}

async function signedWebhook(tx: Database, teamId: string, webhookId: string) {
  const [hook] = await tx
    .select()
    .from(teamWebhooks)
    .where(and(eq(teamWebhooks.id, webhookId), eq(teamWebhooks.teamId, teamId)));
  if (!hook) throw new AppError("NOT_FOUND", { message: "That webhook is not one of the team's" });
  if (hook.format !== "standard")
    throw new AppError("INVALID_INPUT", {
      field: "webhookId",
      message: "Choose a webhook that sends signed JSON: Slack's format cannot carry the log",
    });
  return hook;
}

async function urlOf(tx: Database, stream: { webhookId: string | null }): Promise<string | null> {
  if (!stream.webhookId) return null;
  const [hook] = await tx
    .select({ urlShown: teamWebhooks.urlShown })
    .from(teamWebhooks)
    .where(eq(teamWebhooks.id, stream.webhookId));
  return hook?.urlShown ?? null;
}
