import { randomUUID } from "node:crypto";
import { isIP } from "node:net";
import { and, count, desc, eq, inArray, isNull, lt, lte, ne, or } from "drizzle-orm";
import { webhookEditSchema, webhookInputSchema, type WebhookInput } from "@/lib/schemas/webhooks";
import { WEBHOOK_TEST_EVENT, type WebhookFormat } from "@/lib/webhook-events";
import { changesBetween } from "@/server/audit/changes";
import { lockTeamAudit } from "@/server/audit/trail";
import type { Database } from "@/server/db/client";
import { teams, teamWebhooks, webhookDeliveries } from "@/server/db/schema";
import { AppError } from "@/server/errors";
import { effectivePort } from "@/server/source/http-exchange";
import { classifyAddress } from "@/server/source/ip-policy";
import type { TenancyDeps } from "@/server/tenancy/deps";
import { WEBHOOK_PORTS } from "./post";
import { newWebhookSecret } from "./signing";
import { leaseFrom, webhookSealContext, type AttemptOutcome, type WebhookSender } from "./sender";

/** A team's webhooks at most: each one is a row every matching audit entry and alert writes a delivery to. */
export const WEBHOOKS_PER_TEAM = 5;
/** The console's log shows this many of a webhook's latest deliveries. */
export const DELIVERY_LOG_LENGTH = 50;

type ManageDeps = Pick<TenancyDeps, "db" | "secretBox" | "audit" | "now"> & { allowLoopback: boolean };

export interface WebhookView {
  id: string;
  urlShown: string;
  format: WebhookFormat;
  events: string[];
  createdAt: Date;
}

export async function listWebhooks(db: Database, teamId: string): Promise<WebhookView[]> {
  const rows = await db
    .select()
    .from(teamWebhooks)
    .where(eq(teamWebhooks.teamId, teamId))
    .orderBy(teamWebhooks.createdAt, teamWebhooks.id)
    .limit(WEBHOOKS_PER_TEAM);
  return rows.map(view);
}

/** Adds a webhook; its signing secret is answered this once (the console shows it to copy). */
export async function createWebhook(
  deps: ManageDeps,
  teamId: string,
  input: WebhookInput,
): Promise<{ webhook: WebhookView; secret: string }> {
  const checked = webhookInputSchema.parse(input);
  const url = checkedUrl(checked.url, deps.allowLoopback);
  const id = randomUUID();
  const secret = newWebhookSecret();
  return deps.db.transaction(async (tx) => {
    await lockTeam(tx, teamId);
    const [held] = await tx.select({ n: count() }).from(teamWebhooks).where(eq(teamWebhooks.teamId, teamId));
    if ((held?.n ?? 0) >= WEBHOOKS_PER_TEAM)
      throw new AppError("QUOTA_REACHED", { message: `A team has at most ${WEBHOOKS_PER_TEAM} webhooks` });
    const [row] = await tx
      .insert(teamWebhooks)
      .values({
        id,
        teamId,
        sealedUrl: deps.secretBox.seal(url.href, webhookSealContext.url(id)),
        urlShown: shownUrl(url),
        format: checked.format,
        events: checked.events,
        sealedSecret: deps.secretBox.seal(secret, webhookSealContext.secret(id)),
      })
      .returning();
    await deps.audit.record(tx, {
      teamId,
      action: "webhook.created",
      target: { id, label: row!.urlShown },
      changes: { format: { from: null, to: checked.format }, events: { from: null, to: checked.events.join(", ") } },
    });
    return { webhook: view(row!), secret };
  });
}

/** Changes what a webhook is sent and how; its address only when a new one is given. */
export async function updateWebhook(
  deps: ManageDeps,
  teamId: string,
  webhookId: string,
  input: unknown,
): Promise<WebhookView> {
  const checked = webhookEditSchema.parse(input);
  const url = checked.url === undefined ? null : checkedUrl(checked.url, deps.allowLoopback);
  return deps.db.transaction(async (tx) => {
    await lockTeam(tx, teamId);
    const before = await webhookOf(tx, teamId, webhookId, true);
    const next = {
      format: checked.format,
      events: checked.events,
      urlShown: url ? shownUrl(url) : before.urlShown,
      ...(url && { sealedUrl: deps.secretBox.seal(url.href, webhookSealContext.url(webhookId)) }),
    };
    const [row] = await tx
      .update(teamWebhooks)
      .set({ ...next, updatedAt: deps.now() })
      .where(eq(teamWebhooks.id, webhookId))
      .returning();
    const changes = changesBetween(
      { format: before.format, events: before.events.join(", "), url: before.urlShown },
      { format: next.format, events: next.events.join(", "), url: url ? `${next.urlShown} (new)` : before.urlShown },
      ["format", "events", "url"],
    );
    if (changes)
      await deps.audit.record(tx, {
        teamId,
        action: "webhook.updated",
        target: { id: webhookId, label: row!.urlShown },
        changes,
      });
    return view(row!);
  });
}

export async function deleteWebhook(deps: ManageDeps, teamId: string, webhookId: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    await lockTeam(tx, teamId);
    const hook = await webhookOf(tx, teamId, webhookId, true);
    await tx.delete(teamWebhooks).where(eq(teamWebhooks.id, webhookId));
    await deps.audit.record(tx, { teamId, action: "webhook.deleted", target: { id: webhookId, label: hook.urlShown } });
  });
}

/** A new signing secret, answered this once; the old one stops signing at once. */
export async function rotateWebhookSecret(deps: ManageDeps, teamId: string, webhookId: string): Promise<string> {
  const secret = newWebhookSecret();
  await deps.db.transaction(async (tx) => {
    await lockTeam(tx, teamId);
    const hook = await webhookOf(tx, teamId, webhookId, true);
    await tx
      .update(teamWebhooks)
      .set({ sealedSecret: deps.secretBox.seal(secret, webhookSealContext.secret(webhookId)), updatedAt: deps.now() })
      .where(eq(teamWebhooks.id, webhookId));
    await deps.audit.record(tx, {
      teamId,
      action: "webhook.secret_rotated",
      target: { id: webhookId, label: hook.urlShown },
    });
  });
  return secret;
}

/** The latest deliveries of one of the team's webhooks, newest first. */
export async function webhookDeliveryLog(db: Database, teamId: string, webhookId: string) {
  await webhookOf(db, teamId, webhookId, false);
  return db
    .select({
      id: webhookDeliveries.id,
      eventType: webhookDeliveries.eventType,
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      responseStatus: webhookDeliveries.responseStatus,
      error: webhookDeliveries.error,
      createdAt: webhookDeliveries.createdAt,
      lastAttemptAt: webhookDeliveries.lastAttemptAt,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
    })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.teamId, teamId)))
    .orderBy(desc(webhookDeliveries.id))
    .limit(DELIVERY_LOG_LENGTH);
}

/** "Send test": a `webhook.test` delivery, sent now; how it went is answered and kept in the log. */
export async function sendTestDelivery(
  deps: ManageDeps & { sender: WebhookSender },
  teamId: string,
  webhookId: string,
): Promise<AttemptOutcome> {
  await webhookOf(deps.db, teamId, webhookId, false);
  const [team] = await deps.db.select().from(teams).where(eq(teams.id, teamId));
  const now = deps.now();
  const [row] = await deps.db
    .insert(webhookDeliveries)
    .values({
      webhookId,
      teamId,
      eventKey: `test:${randomUUID()}`,
      eventType: WEBHOOK_TEST_EVENT,
      payload: {
        type: WEBHOOK_TEST_EVENT,
        timestamp: now.toISOString(),
        data: {
          team: { id: teamId, slug: team?.slug, name: team?.name },
          message: "A test from the team's webhook settings",
        },
      },
      // Leased to this request: the scheduled sender does not take it meanwhile.
      status: "sending",
      nextAttemptAt: leaseFrom(now),
    })
    .returning({ id: webhookDeliveries.id });
  return deps.sender.attempt(row!.id);
}

/**
 * "Redeliver": the delivery is sent again now, with its retries from the start (one waiting for its
 * next retry too). One a sender holds right now (`sending`, its lease running) is refused rather than
 * sent twice at once.
 */
export async function redeliver(
  deps: ManageDeps & { sender: WebhookSender },
  teamId: string,
  deliveryId: number,
): Promise<AttemptOutcome> {
  const now = deps.now();
  const [claimed] = await deps.db
    .update(webhookDeliveries)
    .set({ status: "sending", attempts: 0, nextAttemptAt: leaseFrom(now) })
    .where(
      and(
        eq(webhookDeliveries.id, deliveryId),
        eq(webhookDeliveries.teamId, teamId),
        or(
          ne(webhookDeliveries.status, "sending"),
          isNull(webhookDeliveries.nextAttemptAt),
          lte(webhookDeliveries.nextAttemptAt, now),
        ),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  if (!claimed) {
    const [exists] = await deps.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.teamId, teamId)));
    if (!exists) throw new AppError("NOT_FOUND");
    throw new AppError("INVALID_INPUT", {
      message: "This delivery is being sent right now: wait for it, then try again",
    });
  }
  return deps.sender.attempt(claimed.id);
}

/** Deliveries kept this many days, whatever their state: the log is for recent ones. */
export const DELIVERY_RETENTION_DAYS = 30;

export async function pruneWebhookDeliveries(db: Database, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - DELIVERY_RETENTION_DAYS * 86_400_000);
  let deleted = 0;
  // In batches: one statement over a month of a busy instance's rows would hold the embedded database.
  for (;;) {
    const batch = db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(lt(webhookDeliveries.createdAt, cutoff))
      .limit(PRUNE_BATCH);
    const gone = await db
      .delete(webhookDeliveries)
      .where(inArray(webhookDeliveries.id, batch))
      .returning({ id: webhookDeliveries.id });
    deleted += gone.length;
    if (gone.length < PRUNE_BATCH) return deleted;
  }
}

const PRUNE_BATCH = 5_000;

/**
 * The address as the sources' policy sees it before any lookup: a literal private, loopback or
 * reserved address is refused at once, at its field (a name is checked at every delivery, as it
 * resolves then).
 */
function checkedUrl(text: string, allowLoopback: boolean): URL {
  const url = new URL(text);
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) !== 0 && !classifyAddress(host, allowLoopback).allowed)
    throw new AppError("INVALID_INPUT", {
      field: "url",
      message: "That address is private, loopback or reserved: webhooks go to public addresses only",
    });
  if (!allowLoopback && !WEBHOOK_PORTS.has(effectivePort(url)))
    throw new AppError("INVALID_INPUT", { field: "url", message: "A receiver listens on port 80, 443, 8080 or 8443" });
  return url;
}

/** What the console shows of an address: its origin, the rest (where a Slack URL keeps its token) hidden. */
function shownUrl(url: URL): string {
  return `${url.origin}${url.pathname.length > 1 || url.search ? "/…" : "/"}`;
}

export async function lockTeam(db: Database, teamId: string) {
  // Stronger than the key share every audited change holds (its deletion locks it last), and not in
  // conflict with it: two changes of the team's webhooks at once are taken in turn (the quota's count).
  const [team] = await db.select().from(teams).where(eq(teams.id, teamId)).for("no key update");
  if (!team) throw new AppError("NOT_FOUND");
  // Then the team's audit entries, before any webhook row: an audited change holding them enqueues
  // deliveries, whose foreign key waits on a webhook row this change has locked or deleted.
  await lockTeamAudit(db, teamId);
  return team;
}

async function webhookOf(db: Database, teamId: string, webhookId: string, forUpdate: boolean) {
  const query = db
    .select()
    .from(teamWebhooks)
    .where(and(eq(teamWebhooks.id, webhookId), eq(teamWebhooks.teamId, teamId)));
  const [row] = await (forUpdate ? query.for("no key update") : query);
  if (!row) throw new AppError("NOT_FOUND");
  return row;
}

function view(row: typeof teamWebhooks.$inferSelect): WebhookView {
  return {
    id: row.id,
    urlShown: row.urlShown,
    format: row.format as WebhookFormat,
    events: row.events,
    createdAt: row.createdAt,
  };
}
