import { and, asc, count, eq } from "drizzle-orm";
import { presets, projects } from "@/server/db/schema";
import { AppError, isAppError } from "@/server/errors";
import { canonicalOperations, parseOperations, type ImageOperations, type QualityLevel } from "@/server/image";
import { changesBetween } from "@/server/audit/changes";
import type { TenancyDeps } from "./deps";
import { recordProjectChange, type ProjectScope } from "./projects";

/** Presets travel with the project's cached config: keep the set bounded. */
export const MAX_PRESETS = 50;

export interface PresetRow {
  name: string;
  operations: string;
  updatedAt: Date;
}

type Deps = Pick<TenancyDeps, "db" | "invalidate" | "now" | "audit">;

export async function listPresets(
  deps: Pick<TenancyDeps, "db">,
  scope: ProjectScope,
): Promise<{ presets: PresetRow[]; presetsOnly: boolean; defaultQuality: QualityLevel | null }> {
  const [rows, [project]] = await Promise.all([
    deps.db
      .select({ name: presets.name, operations: presets.operations, updatedAt: presets.updatedAt })
      .from(presets)
      .where(eq(presets.projectId, scope.projectId))
      .orderBy(asc(presets.name)),
    deps.db
      .select({ presetsOnly: projects.presetsOnly, defaultQuality: projects.defaultQuality })
      .from(projects)
      .where(eq(projects.id, scope.projectId)),
  ]);
  return { presets: rows, presetsOnly: project?.presetsOnly ?? false, defaultQuality: project?.defaultQuality ?? null };
}

/**
 * Creates or replaces a preset. Its operations must parse as a URL's would, without another preset
 * (no nesting) and without `info`; stored as written, trimmed. The image route sees the change once
 * the project's config is invalidated: the preset's URLs then make (and cache) new variants.
 */
export async function savePreset(
  deps: Deps,
  scope: ProjectScope,
  input: { name: string; operations: string; actorId: string },
): Promise<PresetRow> {
  const operations = input.operations.trim();
  parsePresetOperations(operations);
  const row = await deps.db.transaction(async (tx) => {
    const [existing] = await tx.select({ n: count() }).from(presets).where(eq(presets.projectId, scope.projectId));
    const [same] = await tx
      .select({ name: presets.name, operations: presets.operations })
      .from(presets)
      .where(and(eq(presets.projectId, scope.projectId), eq(presets.name, input.name)))
      .for("update");
    if (!same && (existing?.n ?? 0) >= MAX_PRESETS)
      throw new AppError("INVALID_INPUT", { message: `A project has at most ${MAX_PRESETS} presets` });
    const values = {
      projectId: scope.projectId,
      name: input.name,
      operations,
      updatedBy: input.actorId,
      updatedAt: deps.now(),
    };
    const [saved] = await tx
      .insert(presets)
      .values(values)
      .onConflictDoUpdate({
        target: [presets.projectId, presets.name],
        set: { operations, updatedBy: input.actorId, updatedAt: values.updatedAt },
      })
      .returning({ name: presets.name, operations: presets.operations, updatedAt: presets.updatedAt });
    await deps.audit.record(tx, {
      ...scope,
      action: "preset.saved",
      target: { id: input.name, label: `pr_${input.name}` },
      changes: changesBetween(same ?? null, saved!, ["operations"]),
    });
    return saved!;
  });
  await deps.invalidate.project(scope.projectId);
  return row;
}

export async function deletePreset(deps: Deps, scope: ProjectScope, name: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const [deleted] = await tx
      .delete(presets)
      .where(and(eq(presets.projectId, scope.projectId), eq(presets.name, name)))
      .returning({ name: presets.name, operations: presets.operations });
    if (!deleted) throw new AppError("NOT_FOUND", { message: `No preset named "${name}"` });
    await deps.audit.record(tx, {
      ...scope,
      action: "preset.deleted",
      target: { id: name, label: `pr_${name}` },
      changes: changesBetween(deleted, null, ["operations"]),
    });
  });
  await deps.invalidate.project(scope.projectId);
}

/** Presets only: every URL of the project must be a single `pr_{name}`, which caps its variants. */
export async function setPresetsOnly(deps: Deps, scope: ProjectScope, presetsOnly: boolean): Promise<void> {
  await changeProjectSetting(deps, scope, { presetsOnly });
}

/**
 * q_auto's level for the project's URLs that name no quality; null returns them to the formats'
 * defaults. URLs whose answer changes get new variant keys (and ETags); a CDN keeps what it already
 * holds for them until it is purged.
 */
export async function setDefaultQuality(deps: Deps, scope: ProjectScope, level: QualityLevel | null): Promise<void> {
  await changeProjectSetting(deps, scope, { defaultQuality: level });
}

async function changeProjectSetting(
  deps: Deps,
  scope: ProjectScope,
  change: { presetsOnly: boolean } | { defaultQuality: QualityLevel | null },
): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const where = and(eq(projects.id, scope.projectId), eq(projects.teamId, scope.teamId));
    const [before] = await tx
      .select({
        id: projects.id,
        teamId: projects.teamId,
        name: projects.name,
        slug: projects.slug,
        presetsOnly: projects.presetsOnly,
        defaultQuality: projects.defaultQuality,
      })
      .from(projects)
      .where(where)
      .for("update");
    if (!before) throw new AppError("NOT_FOUND", { message: "Project not found in this team" });
    await tx
      .update(projects)
      .set({ ...change, updatedAt: deps.now() })
      .where(where);
    await recordProjectChange(deps, tx, before, change);
  });
  await deps.invalidate.project(scope.projectId);
}

/**
 * A preset's operations, parsed as URLs parse them, refused at the `operations` field for what a
 * preset may not hold (another preset, info, nothing at all).
 */
export function parsePresetOperations(segment: string): ImageOperations {
  let parsed: ImageOperations;
  try {
    parsed = parseOperations(segment);
  } catch (error) {
    if (isAppError(error))
      throw new AppError("INVALID_INPUT", { message: error.publicMessage, cause: error, field: "operations" });
    throw error;
  }
  if (parsed.preset !== undefined)
    throw new AppError("INVALID_INPUT", { message: "A preset cannot use another preset (pr_)", field: "operations" });
  if (parsed.info)
    throw new AppError("INVALID_INPUT", {
      message: "A preset makes images: info is asked for in the URL",
      field: "operations",
    });
  if (canonicalOperations(parsed) === "{}")
    throw new AppError("INVALID_INPUT", { message: "A preset needs at least one operation", field: "operations" });
  return parsed;
}
