import type { Database } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { findInstanceOwner } from "./registration";
import { assertSecondFactor, teamScope, type Viewer } from "./scope";
import type { AuditScope } from "@/server/audit/audit-log";

/** The instance's log is its owner's: anyone else is told there is nothing here. */
export async function assertInstanceOwner(deps: { db: Database }, userId: string): Promise<void> {
  if ((await findInstanceOwner(deps))?.id !== userId) throw new AppError("NOT_FOUND");
}

/**
 * Whose log a signed-in account may read, named by a team's slug or, without one, the instance's: a
 * team's admins (a member is refused, a stranger told there is no such team), the instance's owner.
 * The same rules as the log's procedures (teamProcedure("audit.read"), the instance owner's).
 */
export async function resolveAuditScope(
  deps: { db: Database; secondFactorRequired: boolean },
  viewer: Viewer,
  teamSlug: string | undefined,
): Promise<AuditScope> {
  if (teamSlug === undefined) {
    assertSecondFactor(deps, viewer, null);
    await assertInstanceOwner(deps, viewer.id);
    return { instance: true };
  }
  const membership = await teamScope(deps, viewer, teamSlug, "audit.read");
  return { teamId: membership.team.id };
}
