import { and, isNull, lt, sql } from "drizzle-orm";
import type { RateLimiter } from "@/server/coordination/types";
import type { Database } from "@/server/db/client";
import { alertEvents, requestMinuteStats } from "@/server/db/schema";
import type { Logger } from "@/server/log";
import type { Mailer } from "@/server/mail/mailer";
import { enqueueCurrentAlerts } from "@/server/webhooks/enqueue";
import type { DeliveryRunReport, WebhookSender } from "@/server/webhooks/sender";
import type { AuditStreamer, StreamRunReport } from "@/server/audit-stream/streamer";
import { mailAlerts } from "./alert-mail";
import { probeBuckets, type ProbeDeps } from "./bucket-probe";
import { findAlerts, type FoundAlert } from "./conditions";

/** An alert seen by a check within this long is current: the banner shows it, a failed mail is retried. */
export const ALERT_CURRENT_MS = 10 * 60_000;
/** The error rate reads 15 minutes; its minutes are kept two hours. */
const MINUTES_KEPT_MS = 2 * 3_600_000;

export interface AlertDeps extends ProbeDeps {
  limiter: Pick<RateLimiter, "used">;
  mailer: Mailer | null;
  logger: Logger;
  /** The dashboard's address, for the links in the mails. */
  dashboardUrl: string;
  /** Sends the teams' webhooks (alerts and audit actions) after the mails; absent: none sent here. */
  webhooks?: WebhookSender;
  /** Streams the teams' audit logs after the webhooks; absent: none streamed here. */
  auditStream?: AuditStreamer;
}

export interface AlertCheckReport {
  ok: boolean;
  /** Alerts that hold now, buckets whose credentials were tried, mails sent and failed. */
  current: number;
  probed: number;
  mailed: number;
  mailFailures: number;
  /** The webhooks' deliveries this check sent (alerts enqueued, then every team's due deliveries). */
  webhooks?: DeliveryRunReport & { enqueued: number };
  auditStream?: StreamRunReport;
}

/**
 * One check of every team's alerts (the cron job `check-alerts`, every minute in process): tries the
 * buckets due, records each alert that holds in its window (a new window is a new row, so a new mail),
 * then mails each new one once to the team's admins, and sends the teams' webhooks (alerts and the
 * audit actions they chose). Safe to run on several instances at once.
 */
export async function checkAlerts(deps: AlertDeps): Promise<AlertCheckReport> {
  await pruneMinuteStats(deps.db, deps.now());
  const probed = await probeBuckets(deps);
  // The check's instant is taken after the probes: what it resolves is what it has just looked at.
  const now = deps.now();
  const found = await findAlerts({ db: deps.db, limiter: deps.limiter, now });
  await recordAlerts(deps.db, found, now);
  const currentSince = new Date(now.getTime() - ALERT_CURRENT_MS);
  const mails = await mailAlerts(deps, now, currentSince);
  const webhooks = deps.webhooks ? await sendWebhooks(deps, deps.webhooks, now, currentSince) : undefined;
  // Budgets of their own, 25 s and 15 s: the cron route's 60 s hold the check, the webhooks and the stream.
  const auditStream = deps.auditStream ? await deps.auditStream.streamDue({ budgetMs: 15_000 }) : undefined;
  return {
    ok: mails.mailFailures === 0 && (webhooks?.ok ?? true) && (auditStream?.ok ?? true),
    current: found.length,
    probed,
    ...mails,
    ...(webhooks && { webhooks }),
    ...(auditStream && { auditStream }),
  };
}

/** The current alerts become deliveries (once each per webhook), then whatever is due is sent. */
async function sendWebhooks(deps: AlertDeps, sender: WebhookSender, now: Date, since: Date) {
  const enqueued = await enqueueCurrentAlerts(deps.db, { since, now, dashboardUrl: deps.dashboardUrl });
  return { enqueued, ...(await sender.deliverDue({ budgetMs: 25_000 })) };
}

/** Alerts that ended this long ago are deleted by the daily maintenance (their window is long past). */
const ENDED_KEPT_MS = 90 * 86_400_000;

/** The daily maintenance's share: alert rows that ended 90 days ago. */
export async function pruneAlertEvents(db: Database, now: Date): Promise<number> {
  const old = await db
    .delete(alertEvents)
    .where(lt(alertEvents.resolvedAt, new Date(now.getTime() - ENDED_KEPT_MS)))
    .returning({ id: alertEvents.id });
  return old.length;
}

/** Minutes older than the error rate reads, with margin: a few rows per active project. */
export async function pruneMinuteStats(db: Database, now: Date): Promise<number> {
  const old = await db
    .delete(requestMinuteStats)
    .where(lt(requestMinuteStats.minute, new Date(now.getTime() - MINUTES_KEPT_MS)))
    .returning({ minute: requestMinuteStats.minute });
  return old.length;
}

/**
 * One row per alert and window; a row seen again moves its lastSeenAt (and says the latest figures),
 * and is current again if it had been resolved. Then what this check did not see has ended (or its
 * alert was turned off): resolved, off the banner, not mailed. Rows another check holds are skipped
 * (a check on another instance is seeing them now), so two checks never wait on each other.
 */
async function recordAlerts(db: Database, found: FoundAlert[], now: Date): Promise<void> {
  if (found.length > 0) {
    // In key order, as the statistics: two instances' checks lock the same rows in the same order.
    const key = (a: FoundAlert) => `${a.teamId}|${a.kind}|${a.subjectId}|${a.window}`;
    const rows = [...found]
      .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
      .map((alert) => ({ ...alert, firstSeenAt: now, lastSeenAt: now }));
    await db
      .insert(alertEvents)
      .values(rows)
      .onConflictDoUpdate({
        target: [alertEvents.teamId, alertEvents.kind, alertEvents.subjectId, alertEvents.window],
        set: {
          lastSeenAt: sql`greatest(${alertEvents.lastSeenAt}, excluded.last_seen_at)`,
          message: sql`excluded.message`,
          resolvedAt: null,
        },
      });
  }
  const ended = db
    .select({ id: alertEvents.id })
    .from(alertEvents)
    .where(and(isNull(alertEvents.resolvedAt), lt(alertEvents.lastSeenAt, now)))
    .orderBy(alertEvents.id)
    .for("update", { skipLocked: true });
  await db
    .update(alertEvents)
    .set({ resolvedAt: now })
    .where(sql`${alertEvents.id} in (${ended})`);
}
