import { and, desc, eq, gte, isNull } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { alertEvents, projects } from "@/server/db/schema";
import { ALERT_CURRENT_MS } from "./check-alerts";
import type { AlertKind } from "./conditions";

export interface CurrentAlert {
  id: number;
  kind: AlertKind;
  message: string;
  projectSlug: string;
  firstSeenAt: Date;
  lastSeenAt: Date;
  mailed: boolean;
}

/**
 * The team's alerts that hold (seen by the latest check, not resolved since; not seen for ALERT_CURRENT_MS:
 * the checks stopped, and the banner does not claim what nobody checks), newest first, for the banner.
 */
export async function currentAlerts(deps: { db: Database; now: () => Date }, teamId: string): Promise<CurrentAlert[]> {
  const since = new Date(deps.now().getTime() - ALERT_CURRENT_MS);
  const rows = await deps.db
    .select({
      id: alertEvents.id,
      kind: alertEvents.kind,
      message: alertEvents.message,
      projectSlug: projects.slug,
      firstSeenAt: alertEvents.firstSeenAt,
      lastSeenAt: alertEvents.lastSeenAt,
      mailedAt: alertEvents.mailedAt,
    })
    .from(alertEvents)
    .innerJoin(projects, eq(projects.id, alertEvents.projectId))
    .where(and(eq(alertEvents.teamId, teamId), isNull(alertEvents.resolvedAt), gte(alertEvents.lastSeenAt, since)))
    .orderBy(desc(alertEvents.firstSeenAt), desc(alertEvents.id))
    .limit(20);
  return rows.map(({ mailedAt, ...row }) => ({ ...row, kind: row.kind as AlertKind, mailed: mailedAt !== null }));
}
