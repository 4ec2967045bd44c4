import { eq } from "drizzle-orm";
import { alertSettingsSchema, DEFAULT_ALERT_SETTINGS, type AlertSettings } from "@/lib/schemas/alerts";
import { changesBetween } from "@/server/audit/changes";
import type { Database } from "@/server/db/client";
import { teams, teamAlertSettings } from "@/server/db/schema";
import { AppError } from "@/server/errors";
import type { TenancyDeps } from "@/server/tenancy/deps";
import { teamTarget } from "@/server/tenancy/teams";

const FIELDS = ["keyDayLimitPercent", "errorRatePercent", "keyExpiry", "bucketCredentials", "mailAdmins"] as const;

const pick = (row: AlertSettings): AlertSettings => Object.fromEntries(FIELDS.map((f) => [f, row[f]])) as AlertSettings;

/** The team's alerts: its own choice, or the defaults. */
export async function alertSettingsOf(db: Database, teamId: string): Promise<AlertSettings> {
  const [row] = await db.select().from(teamAlertSettings).where(eq(teamAlertSettings.teamId, teamId));
  return row ? pick(row) : DEFAULT_ALERT_SETTINGS;
}

/** Saves the team's alerts (an audited change of the team; saving what is there writes no entry). */
export async function saveAlertSettings(
  deps: Pick<TenancyDeps, "db" | "audit">,
  teamId: string,
  input: AlertSettings,
): Promise<AlertSettings> {
  const next = pick(alertSettingsSchema.parse(input));
  return deps.db.transaction(async (tx) => {
    // A key share on the team, as every audited change of it holds (its deletion locks it last).
    const [team] = await tx.select().from(teams).where(eq(teams.id, teamId)).for("key share");
    if (!team) throw new AppError("NOT_FOUND");
    const [stored] = await tx
      .select()
      .from(teamAlertSettings)
      .where(eq(teamAlertSettings.teamId, teamId))
      .for("update");
    const before = stored ? pick(stored) : DEFAULT_ALERT_SETTINGS;
    await tx
      .insert(teamAlertSettings)
      .values({ teamId, ...next })
      .onConflictDoUpdate({ target: teamAlertSettings.teamId, set: { ...next, updatedAt: new Date() } });
    const changes = changesBetween(before, next, [...FIELDS]);
    if (changes) await deps.audit.record(tx, { teamId, action: "alerts.updated", target: teamTarget(team), changes });
    return next;
  });
}
