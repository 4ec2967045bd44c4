import { and, asc, count, eq, ilike, inArray, or } from "drizzle-orm";
import { nameSchema, slugSchema } from "@/lib/schemas/names";
import type { Database } from "@/server/db/client";
import { isUniqueViolation } from "@/server/db/errors";
import { projects, teams } from "@/server/db/schema";
import { AppError } from "@/server/errors";
import { changesBetween } from "@/server/audit/changes";
import type { TenancyDeps } from "./deps";
import { assertBelowQuota, quotas } from "./quotas";
import { normaliseRefererHosts, normaliseSourceHosts, type SourceHostPolicy } from "./source-hosts";
import { keysOfProjects } from "./teams";

export interface ProjectRow {
  id: string;
  teamId: string;
  name: string;
  slug: string;
  allowedSourceHosts: string[];
  allowedRefererHosts: string[];
  lastActivityAt: Date | null;
  createdAt: Date;
}

/** A project addressed through its team: a project id alone never selects a row. */
export interface ProjectScope {
  teamId: string;
  projectId: string;
}

const columns = {
  id: projects.id,
  teamId: projects.teamId,
  name: projects.name,
  slug: projects.slug,
  allowedSourceHosts: projects.allowedSourceHosts,
  allowedRefererHosts: projects.allowedRefererHosts,
  lastActivityAt: projects.lastActivityAt,
  createdAt: projects.createdAt,
};

const slugTaken = (error: unknown) =>
  new AppError("SLUG_TAKEN", {
    message: "This team already has a project with that slug",
    cause: error,
    field: "slug",
  });

/** Within the projects a team may have (quotas.ts). */
export async function createProject(
  deps: Pick<TenancyDeps, "db" | "audit">,
  input: {
    teamId: string;
    name: string;
    slug: string;
    allowedSourceHosts?: readonly string[];
    allowedRefererHosts?: readonly string[];
  },
  policy: SourceHostPolicy = {},
): Promise<ProjectRow> {
  const values = {
    teamId: input.teamId,
    name: nameSchema.parse(input.name),
    slug: slugSchema.parse(input.slug),
    allowedSourceHosts: normaliseSourceHosts(input.allowedSourceHosts ?? [], policy),
    allowedRefererHosts: normaliseRefererHosts(input.allowedRefererHosts ?? [], policy),
  };
  try {
    return await deps.db.transaction(async (tx) => {
      await assertRoomForProject(tx, input.teamId);
      const [row] = await tx.insert(projects).values(values).returning(columns);
      await deps.audit.record(tx, {
        teamId: row!.teamId,
        projectId: row!.id,
        action: "project.created",
        target: projectTarget(row!),
        changes: projectChanges(null, row!),
      });
      return row!;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken(error);
    throw error;
  }
}

/**
 * Counted under a lock of the team's row (NO KEY UPDATE: two creations at once count in turn, and a
 * team being deleted is waited for).
 */
async function assertRoomForProject(tx: Database, teamId: string): Promise<void> {
  const [team] = await tx.select({ id: teams.id }).from(teams).where(eq(teams.id, teamId)).for("no key update");
  if (!team) throw new AppError("NOT_FOUND", { message: "Team not found" });
  const [held] = await tx.select({ n: count() }).from(projects).where(eq(projects.teamId, teamId));
  assertBelowQuota(quotas.projectsPerTeam, held?.n ?? 0);
}

/** Each given project's team (projects deleted meanwhile are absent). */
export async function teamsOfProjects(
  deps: Pick<TenancyDeps, "db">,
  projectIds: readonly string[],
): Promise<Map<string, string>> {
  const known = projectIds.filter((id) => UUID.test(id));
  if (known.length === 0) return new Map();
  const rows = await deps.db
    .select({ id: projects.id, teamId: projects.teamId })
    .from(projects)
    .where(inArray(projects.id, known));
  return new Map(rows.map((row) => [row.id, row.teamId]));
}

/** A store key's first segment is a project id; anything else would fail the uuid cast. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findProject(
  deps: Pick<TenancyDeps, "db">,
  teamId: string,
  slug: string,
): Promise<ProjectRow | null> {
  const [row] = await deps.db
    .select(columns)
    .from(projects)
    .where(and(eq(projects.teamId, teamId), eq(projects.slug, slug)));
  return row ?? null;
}

/** The team's projects by name; `search` matches name or slug, case-insensitively. */
export async function listProjects(
  deps: Pick<TenancyDeps, "db">,
  teamId: string,
  search?: string,
): Promise<ProjectRow[]> {
  const term = search?.trim();
  const pattern = term ? `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  return deps.db
    .select(columns)
    .from(projects)
    .where(
      and(
        eq(projects.teamId, teamId),
        pattern ? or(ilike(projects.name, pattern), ilike(projects.slug, pattern)) : undefined,
      ),
    )
    .orderBy(asc(projects.name));
}

/** The write alone: callers drop the cached project (updateProject does; bootstrap's caller does). */
export async function writeProject(
  deps: Pick<TenancyDeps, "db" | "audit">,
  scope: ProjectScope,
  input: {
    name?: string;
    slug?: string;
    allowedSourceHosts?: readonly string[];
    allowedRefererHosts?: readonly string[];
  },
  policy: SourceHostPolicy = {},
): Promise<ProjectRow> {
  const changes = {
    ...(input.name !== undefined && { name: nameSchema.parse(input.name) }),
    ...(input.slug !== undefined && { slug: slugSchema.parse(input.slug) }),
    ...(input.allowedSourceHosts !== undefined && {
      allowedSourceHosts: normaliseSourceHosts(input.allowedSourceHosts, policy),
    }),
    ...(input.allowedRefererHosts !== undefined && {
      allowedRefererHosts: normaliseRefererHosts(input.allowedRefererHosts, policy),
    }),
    updatedAt: new Date(),
  };
  try {
    return await deps.db.transaction(async (tx) => {
      const [before] = await tx.select(columns).from(projects).where(inScope(scope)).for("update");
      if (!before) throw new AppError("NOT_FOUND", { message: "Project not found in this team" });
      const [row] = await tx.update(projects).set(changes).where(inScope(scope)).returning(columns);
      await recordProjectChange(deps, tx, before, row!);
      return row!;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken(error);
    throw error;
  }
}

/** How the log names a project. */
export const projectTarget = (row: Pick<ProjectRow, "id" | "name" | "slug">) => ({
  id: row.id,
  label: `${row.name} (${row.slug})`,
});

/** The project's settings the log follows, the host lists among them. */
const projectFields = [
  "name",
  "slug",
  "allowedSourceHosts",
  "allowedRefererHosts",
  "presetsOnly",
  "defaultQuality",
] as const;

export function projectChanges(before: Partial<ProjectSettings> | null, after: Partial<ProjectSettings> | null) {
  return changesBetween(before, after, projectFields);
}
type ProjectSettings = ProjectRow & { presetsOnly: boolean; defaultQuality: string | null };

/** A "project.updated" entry for what changed between two reads of its row; none when nothing did. */
export async function recordProjectChange(
  deps: Pick<TenancyDeps, "audit">,
  tx: Database,
  before: Partial<ProjectSettings> & Pick<ProjectRow, "id" | "teamId" | "name" | "slug">,
  after: Partial<ProjectSettings>,
): Promise<void> {
  const changes = projectChanges(before, after);
  if (!changes) return;
  await deps.audit.record(tx, {
    teamId: before.teamId,
    projectId: before.id,
    action: "project.updated",
    target: projectTarget({ ...before, ...after }),
    changes,
  });
}

/**
 * Name, slug and the two host lists. The image route reads the slug and the lists, so the cached
 * project is dropped before this returns.
 */
export async function updateProject(
  deps: Pick<TenancyDeps, "db" | "invalidate" | "hostPolicy" | "audit">,
  scope: ProjectScope,
  input: Parameters<typeof writeProject>[2],
): Promise<ProjectRow> {
  const row = await writeProject(deps, scope, input, deps.hostPolicy);
  await deps.invalidate.project(row.id);
  return row;
}

/** Deletes the project and its keys (cascade); every key's cached entry goes with it. */
export async function deleteProject(
  deps: Pick<TenancyDeps, "db" | "invalidate" | "audit">,
  scope: ProjectScope,
): Promise<void> {
  const publicKeys = await deps.db.transaction(async (tx) => {
    const [locked] = await tx.select(columns).from(projects).where(inScope(scope)).for("update");
    if (!locked) throw new AppError("NOT_FOUND");
    const keys = await keysOfProjects({ db: tx }, [locked.id]);
    await tx.delete(projects).where(inScope(scope));
    await deps.audit.record(tx, {
      ...scope,
      action: "project.deleted",
      target: projectTarget(locked),
      changes: projectChanges(locked, null),
    });
    return keys.map((k) => k.publicKey);
  });
  await deps.invalidate.project(scope.projectId, publicKeys);
}

function inScope(scope: ProjectScope) {
  return and(eq(projects.id, scope.projectId), eq(projects.teamId, scope.teamId));
}
