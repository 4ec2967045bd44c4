import { asc, eq } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { projects } from "@/server/db/schema";
import { betweenStatements } from "@/server/db/newest-first-scan";

/** Whose requests: one project's, or every project of a team. */
export type OutcomeScope = { projectId: string } | { teamId: string };

/**
 * Projects one statement reads: a project's rows over a range are bounded (hours folded into days,
 * stats-compaction.ts; distinct keys bounded per day, daily-allowance.ts), so a team's read is a few
 * statements of bounded size, never one that grows with the team, and the embedded database (one
 * statement at a time for everyone) serves other sessions between them.
 */
const PROJECTS_PER_STATEMENT = 5;

/** Runs `read` on the scope's projects a group at a time, in turn, and gives back every group's rows. */
export async function readByProjects<T>(
  db: Database,
  scope: OutcomeScope,
  read: (projectIds: string[]) => Promise<T[]>,
  signal?: AbortSignal,
  perStatement = PROJECTS_PER_STATEMENT,
): Promise<T[]> {
  if ("projectId" in scope) return read([scope.projectId]);
  const ids = (
    await db
      .select({ id: projects.id })
      .from(projects)
      .where(eq(projects.teamId, scope.teamId))
      .orderBy(asc(projects.id))
  ).map((row) => row.id);
  return readInGroups(ids, read, signal, perStatement);
}

/** Runs `read` on these projects a group at a time, in turn, and gives back every group's rows. */
export async function readInGroups<T>(
  ids: readonly string[],
  read: (projectIds: string[]) => Promise<T[]>,
  signal?: AbortSignal,
  perStatement = PROJECTS_PER_STATEMENT,
): Promise<T[]> {
  const rows: T[] = [];
  for (let i = 0; i < ids.length; i += perStatement) {
    // Before each group, the first too: a caller may chain many of these (an export's weeks).
    await betweenStatements(signal);
    rows.push(...(await read(ids.slice(i, i + perStatement))));
  }
  return rows;
}
