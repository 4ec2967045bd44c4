import { and, asc, eq, inArray, lte, notInArray, sql } from "drizzle-orm";
import type { WebhookFormat } from "@/lib/webhook-events";
import type { Database } from "@/server/db/client";
import { teamWebhooks, webhookDeliveries } from "@/server/db/schema";
import { describeError, type Logger } from "@/server/log";
import type { SecretBox } from "@/server/signing";
import { bodyOf, type WebhookPayload } from "./bodies";
import { postWebhook, type PostDeps, type PostOutcome } from "./post";
import { signWebhook } from "./signing";

/** After the first attempt: 1 min, 5 min, 30 min, 2 h, 8 h; then the delivery is failed (six attempts). */
export const RETRY_DELAYS_S = [60, 300, 1800, 7200, 28_800] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;
/** A receiver answers within this long, or the attempt failed. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** A claimed delivery is a sender's for this long: past the post's deadline, a sender that died is replaced. */
const LEASE_MS = 2 * 60_000;
export const leaseFrom = (now: Date) => new Date(now.getTime() + LEASE_MS);

/** What the sealed columns are bound to: a copy moved onto another row does not open. */
export const webhookSealContext = {
  url: (id: string) => `webhook-url:${id}`,
  secret: (id: string) => `webhook-secret:${id}`,
};

export interface SenderDeps {
  db: Database;
  secretBox: SecretBox;
  post: PostDeps;
  now: () => Date;
  logger: Logger;
}

export type AttemptOutcome = { delivered: boolean; status: number | null; error: string | null };

export interface DeliveryRunReport {
  ok: boolean;
  delivered: number;
  failed: number;
  /** Teams whose receiver failed this run: their other due deliveries wait for the next one. */
  teamsFailing: number;
}

export interface WebhookSender {
  /** The sources' loopback policy, which receivers' addresses follow too. */
  readonly allowsLoopback: boolean;
  /** Sends one delivery now (claimed by the caller), records how it went and schedules its retry. */
  attempt(deliveryId: number): Promise<AttemptOutcome>;
  /** Sends the due deliveries of every team, within a time budget. */
  deliverDue(options?: { budgetMs?: number }): Promise<DeliveryRunReport>;
}

export function createWebhookSender(deps: SenderDeps): WebhookSender {
  const attempt = async (deliveryId: number): Promise<AttemptOutcome> => {
    const [row] = await deps.db
      .select({ delivery: webhookDeliveries, hook: teamWebhooks })
      .from(webhookDeliveries)
      .innerJoin(teamWebhooks, eq(teamWebhooks.id, webhookDeliveries.webhookId))
      .where(eq(webhookDeliveries.id, deliveryId));
    if (!row) return { delivered: false, status: null, error: "the webhook was deleted" };
    const { delivery, hook } = row;
    const sentAt = deps.now();
    let outcome: PostOutcome;
    try {
      const body = bodyOf(hook.format as WebhookFormat, delivery.payload as unknown as WebhookPayload);
      const secret = deps.secretBox.open(hook.sealedSecret, webhookSealContext.secret(hook.id));
      const url = new URL(deps.secretBox.open(hook.sealedUrl, webhookSealContext.url(hook.id)));
      const headers = signWebhook(secret, `msg_${delivery.eventKey.replace(":", "_")}`, sentAt, body);
      outcome = await postWebhook(url, { ...headers }, body, deps.post);
    } catch (error) {
      // Counted as an attempt like any other: a row that cannot be sent still ends failed, not leased forever.
      deps.logger.log("error", "a webhook delivery could not be prepared", {
        delivery: deliveryId,
        ...describeError(error),
      });
      outcome = { error: "the delivery could not be prepared (the server's log says why)" };
    }
    const status = "status" in outcome ? outcome.status : null;
    const delivered = status !== null && status >= 200 && status < 300;
    const error = "error" in outcome ? outcome.error : delivered ? null : `the receiver answered ${status}`;
    const attempts = delivery.attempts + 1;
    const retryIn = RETRY_DELAYS_S[attempts - 1];
    await deps.db
      .update(webhookDeliveries)
      .set({
        attempts,
        status: delivered ? "delivered" : retryIn === undefined ? "failed" : "pending",
        nextAttemptAt: delivered || retryIn === undefined ? null : new Date(sentAt.getTime() + retryIn * 1000),
        lastAttemptAt: sentAt,
        responseStatus: status,
        error,
      })
      .where(eq(webhookDeliveries.id, deliveryId));
    return { delivered, status, error };
  };

  return {
    allowsLoopback: deps.post.allowLoopback,
    attempt,
    async deliverDue({ budgetMs = 40_000 } = {}) {
      const started = performance.now();
      const report: DeliveryRunReport = { ok: true, delivered: 0, failed: 0, teamsFailing: 0 };
      // A team whose receiver failed costs one attempt per run, not one per delivery or webhook of it:
      // the other teams' deliveries are not stuck behind it. A claim is made only while a whole
      // attempt still fits in the budget (the cron route has 60 s in all).
      const failing: string[] = [];
      while (performance.now() - started + deps.post.timeoutMs <= budgetMs) {
        const claimed = await claimNext(deps, failing);
        if (!claimed) break;
        try {
          const outcome = await attempt(claimed.id);
          if (outcome.delivered) report.delivered++;
          else {
            report.failed++;
            failing.push(claimed.teamId);
          }
        } catch (error) {
          report.ok = false;
          failing.push(claimed.teamId);
          deps.logger.log("error", "a webhook delivery could not be attempted", {
            delivery: claimed.id,
            ...describeError(error),
          });
        }
      }
      report.teamsFailing = failing.length;
      return report;
    },
  };
}

/**
 * The oldest due delivery of a team whose receiver has not failed this run, leased to this sender: `sending` until the
 * lease ends (skipping others' claims); a lease that ended is a sender that died, and is taken over.
 */
async function claimNext(deps: SenderDeps, failing: string[]): Promise<{ id: number; teamId: string } | null> {
  const now = deps.now();
  const due = and(
    inArray(webhookDeliveries.status, ["pending", "sending"]),
    lte(webhookDeliveries.nextAttemptAt, now),
    failing.length > 0 ? notInArray(webhookDeliveries.teamId, failing) : undefined,
  );
  const next = deps.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(due)
    .orderBy(asc(webhookDeliveries.nextAttemptAt), asc(webhookDeliveries.id))
    .limit(1)
    .for("update", { skipLocked: true });
  const [claimed] = await deps.db
    .update(webhookDeliveries)
    .set({ status: "sending", nextAttemptAt: leaseFrom(now) })
    .where(sql`${webhookDeliveries.id} in (${next})`)
    .returning({ id: webhookDeliveries.id, teamId: webhookDeliveries.teamId });
  return claimed ?? null;
}
