import { and, eq, gte, inArray, isNull, notExists, notInArray, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { alertEvents, projects, teamAlertSettings, teamMembers, teams, user } from "@/server/db/schema";
import { describeError, type Logger } from "@/server/log";
import type { Mailer } from "@/server/mail/mailer";
import { oneLine, quoted } from "@/server/mail/plain-text";
import type { AlertKind } from "./conditions";

interface MailDeps {
  db: Database;
  mailer: Mailer | null;
  logger: Logger;
  dashboardUrl: string;
}

type AlertRow = typeof alertEvents.$inferSelect;

const ABOUT: Record<AlertKind, { subject: string; page: string; window: string }> = {
  keyDayLimit: { subject: "an API key is near its day limit", page: "keys", window: "UTC day" },
  errorRate: { subject: "a project's requests are failing", page: "usage", window: "hour" },
  keyExpiry: { subject: "an API key expires soon", page: "keys", window: "expiry of the key" },
  bucketCredentials: { subject: "a bucket refuses its credentials", page: "buckets", window: "UTC day" },
  keySpendCap: { subject: "an API key is near or at its spend cap", page: "keys", window: "cap, share and period" },
};

/**
 * Mails each current alert not mailed yet to its team's admins, once. Each is claimed alone (mailedAt
 * set, skipping rows another instance is claiming) just before its send, so two instances never both
 * send it and a process that stops loses at most the one in flight; a send that fails clears the
 * claim, and a later check tries again while the alert holds. Teams that turned mail off are skipped;
 * without SMTP nothing is claimed (the banner shows the alerts either way).
 */
export async function mailAlerts(
  deps: MailDeps,
  now: Date,
  currentSince: Date,
): Promise<{ mailed: number; mailFailures: number }> {
  let mailed = 0;
  let failed = 0;
  if (!deps.mailer) return { mailed, mailFailures: failed };
  const due = and(
    isNull(alertEvents.mailedAt),
    isNull(alertEvents.resolvedAt),
    gte(alertEvents.lastSeenAt, currentSince),
    notExists(
      deps.db
        .select({ one: sql`1` })
        .from(teamAlertSettings)
        .where(and(eq(teamAlertSettings.teamId, alertEvents.teamId), eq(teamAlertSettings.mailAdmins, false))),
    ),
  );
  // A send that failed is tried again by the next check, not by this one.
  const tried: number[] = [];
  for (;;) {
    const next = deps.db
      .select({ id: alertEvents.id })
      .from(alertEvents)
      .where(tried.length > 0 ? and(due, notInArray(alertEvents.id, tried)) : due)
      .orderBy(alertEvents.id)
      .limit(1)
      .for("update", { skipLocked: true });
    const [alert] = await deps.db
      .update(alertEvents)
      .set({ mailedAt: now, mailError: null })
      .where(sql`${alertEvents.id} in (${next})`)
      .returning();
    if (!alert) break;
    tried.push(alert.id);
    try {
      if (await mailOne(deps, alert)) mailed++;
    } catch (error) {
      failed++;
      deps.logger.log("error", "alert mail failed", { alert: alert.id, ...describeError(error) });
      await deps.db
        .update(alertEvents)
        .set({ mailedAt: null, mailError: error instanceof Error ? error.message.slice(0, 500) : "send failed" })
        .where(eq(alertEvents.id, alert.id));
    }
  }
  return { mailed, mailFailures: failed };
}

/** One mail to the team's admins (who see each other in the team's member list anyway). */
async function mailOne(deps: MailDeps, alert: AlertRow): Promise<boolean> {
  if (!alert.projectId) return false;
  const [where] = await deps.db
    .select({ team: teams.name, teamSlug: teams.slug, projectSlug: projects.slug })
    .from(projects)
    .innerJoin(teams, eq(teams.id, projects.teamId))
    .where(eq(projects.id, alert.projectId));
  const admins = await deps.db
    .select({ email: user.email })
    .from(teamMembers)
    .innerJoin(user, eq(user.id, teamMembers.userId))
    .where(and(eq(teamMembers.teamId, alert.teamId), inArray(teamMembers.role, ["owner", "admin"])));
  if (!where) return false;
  const about = ABOUT[alert.kind as AlertKind];
  const team = `${deps.dashboardUrl}/t/${where.teamSlug}`;
  if (admins.length === 0) return false;
  await deps.mailer!.send({
    to: admins.map((admin) => admin.email).join(", "),
    // The kind of alert alone: a team's name is its owner's choosing, and an inbox shows a subject as ours.
    subject: `OptStuff: ${about.subject}`,
    // The message carries key, project and bucket names an owner chose: kept on its one line.
    text: [
      oneLine(alert.message),
      "",
      `${team}/p/${where.projectSlug}/${about.page}`,
      "",
      `You are an admin of the team ${quoted(where.team)}. This alert is mailed at most once per ${about.window}; the dashboard shows it while it holds. Its settings: ${team}/settings`,
      "",
    ].join("\n"),
  });
  return true;
}
