import { and, eq } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { projects } from "@/server/db/schema";
import { normaliseSourceHosts, type SourceHostPolicy } from "./source-hosts";
import { nameSchema, slugSchema } from "./slugs";

export interface ProjectRow {
  id: string;
  teamId: string;
  name: string;
  slug: string;
  allowedSourceHosts: string[];
}

const columns = {
  id: projects.id,
  teamId: projects.teamId,
  name: projects.name,
  slug: projects.slug,
  allowedSourceHosts: projects.allowedSourceHosts,
};

export async function createProject(
  db: Database,
  input: { teamId: string; name: string; slug: string; allowedSourceHosts?: readonly string[] },
  policy: SourceHostPolicy = {},
): Promise<ProjectRow> {
  const [row] = await db
    .insert(projects)
    .values({
      teamId: input.teamId,
      name: nameSchema.parse(input.name),
      slug: slugSchema.parse(input.slug),
      allowedSourceHosts: normaliseSourceHosts(input.allowedSourceHosts ?? [], policy),
    })
    .returning(columns);
  return row!;
}

/** Scoped by team: a project id alone never selects a row. */
export async function findProject(db: Database, teamId: string, slug: string): Promise<ProjectRow | null> {
  const [row] = await db.select(columns).from(projects).where(and(eq(projects.teamId, teamId), eq(projects.slug, slug)));
  return row ?? null;
}

export async function setProjectSourceHosts(
  db: Database,
  scope: { teamId: string; projectId: string },
  hosts: readonly string[],
  policy: SourceHostPolicy = {},
): Promise<ProjectRow> {
  const [row] = await db
    .update(projects)
    .set({ allowedSourceHosts: normaliseSourceHosts(hosts, policy), updatedAt: new Date() })
    .where(and(eq(projects.id, scope.projectId), eq(projects.teamId, scope.teamId)))
    .returning(columns);
  if (!row) throw new Error("Project not found in this team");
  return row;
}
