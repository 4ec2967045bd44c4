import { and, count, desc, eq, sql } from "drizzle-orm";
import type { ConfigInvalidator } from "@/server/config-cache";
import type { Database } from "@/server/db/client";
import { projects, sourcePurges } from "@/server/db/schema";
import type { PublicNames } from "@/server/delivery/public-names";
import { sourceName, storePrefixOf } from "@/server/delivery/result-keys";
import { AppError, isAppError } from "@/server/errors";
import { describeError, type Logger } from "@/server/log";
import type { ResultStore } from "@/server/result-store/types";
import { parseSource } from "@/server/source";
import type { AuditTrail } from "@/server/audit/trail";
import type { TenancyDeps } from "./deps";
import type { ProjectScope } from "./projects";

export interface PurgeDeps {
  db: Database;
  invalidate: ConfigInvalidator;
  /** Null when results are kept in memory only: the generation alone does the work then. */
  store: ResultStore | null;
  logger: Logger;
  now: () => Date;
  /** The image route's own tag names, so the tag answered is the one its responses carried. */
  publicNames: Pick<PublicNames, "projectTag" | "sourceTag">;
  audit: AuditTrail;
}

export interface PurgeResult {
  /** What was purged: the source as the request log names it, or null for the whole project. */
  source: string | null;
  generation: number;
  /** Cache-Tag / Surrogate-Key value to purge at the CDN for the same set (a keyed digest, public-names.ts). */
  cdnTag: string;
  /** Stored results deleted (the rest of the store is untouched). */
  deletedObjects: number;
  /** Too many sources were purged one by one since the last whole purge: this one purged the project. */
  widened: boolean;
}

/**
 * Per-source purge rows a project keeps before a source purge widens to the whole project: the rows
 * travel with the project's cached config, so they must stay bounded. Wider is never wrong: it only
 * costs transforms.
 */
export const MAX_SOURCE_PURGES = 500;

/**
 * Purges one source's results (every variant) or the whole project's, on every instance: the purge
 * takes a new generation, which is part of every cache key and ETag (result-keys.ts), and the project's
 * config is invalidated, so L1, the store, the source cache and clients' ETags all stop matching once
 * instances reread it (≤ the config cache's 1 s L1). Deleting the stored objects only frees space.
 */
export async function purgeResults(
  deps: PurgeDeps,
  scope: ProjectScope,
  input: { source?: string; actorId: string | null },
): Promise<PurgeResult> {
  const source = input.source === undefined ? null : purgeSourceName(input.source);
  const { generation, widened } = await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .update(projects)
      .set({ cacheGeneration: sql`${projects.cacheGeneration} + 1`, cachePurgedAt: deps.now() })
      .where(and(eq(projects.id, scope.projectId), eq(projects.teamId, scope.teamId)))
      .returning({ generation: projects.cacheGeneration });
    if (!row) throw new AppError("NOT_FOUND");
    const [purged] = await tx
      .select({ n: count() })
      .from(sourcePurges)
      .where(eq(sourcePurges.projectId, scope.projectId));
    const whole = source === null || (purged?.n ?? 0) >= MAX_SOURCE_PURGES;
    // In the admin's words: what was purged, and why more than asked when it was widened (the
    // generation and the bound are the cache's own business: the log line below has them).
    await deps.audit.record(tx, {
      ...scope,
      action: "cache.purged",
      target: { id: source ?? "*", label: source ?? "every source" },
      changes:
        whole && source !== null
          ? {
              scope: {
                from: source,
                to: `every source (${purged?.n ?? 0} sources were purged one by one since the last whole purge)`,
              },
            }
          : null,
    });
    if (whole) {
      await tx.update(projects).set({ cacheBase: row.generation }).where(eq(projects.id, scope.projectId));
      await tx.delete(sourcePurges).where(eq(sourcePurges.projectId, scope.projectId));
      return { generation: row.generation, widened: source !== null };
    }
    const values = { generation: row.generation, purgedBy: input.actorId, purgedAt: deps.now() };
    await tx
      .insert(sourcePurges)
      .values({ projectId: scope.projectId, source, ...values })
      .onConflictDoUpdate({ target: [sourcePurges.projectId, sourcePurges.source], set: values });
    return { generation: row.generation, widened: false };
  });
  await deps.invalidate.project(scope.projectId);

  const purged = widened ? null : source;
  const deletedObjects = await deleteStored(deps, storePrefixOf(scope.projectId, purged ?? undefined));
  const result: PurgeResult = {
    source: purged,
    generation,
    cdnTag:
      purged === null
        ? deps.publicNames.projectTag(scope.projectId)
        : deps.publicNames.sourceTag(scope.projectId, purged),
    deletedObjects,
    widened,
  };
  deps.logger.log("info", "cache purged", { projectId: scope.projectId, actorId: input.actorId, ...result });
  return result;
}

/** After a project is deleted: its results are unreachable already; this frees their space. */
export function dropProjectResults(deps: Pick<PurgeDeps, "store" | "logger">, projectId: string): Promise<number> {
  return deleteStored(deps, storePrefixOf(projectId));
}

async function deleteStored(deps: Pick<PurgeDeps, "store" | "logger">, prefix: string): Promise<number> {
  if (!deps.store) return 0;
  try {
    return await deps.store.deletePrefix(prefix);
  } catch (error) {
    // The generation already made these results unreachable; the store's bound evicts them in time.
    deps.logger.log("warn", "purged results could not be deleted from the store", describeError(error));
    return 0;
  }
}

/** A source as typed in the dashboard or CLI (`https://host/path`, `local/photo.jpg`) → its name in keys and logs. */
export function purgeSourceName(input: string): string {
  try {
    return sourceName(parseSource(input.trim()));
  } catch (error) {
    if (!isAppError(error)) throw error;
    throw new AppError("INVALID_INPUT", {
      message: `Not a source URL: ${error.detail ?? error.message}`,
      cause: error,
      field: "source",
    });
  }
}

export interface CacheStatus {
  lastPurgedAt: Date | null;
  /** Sources purged since the last whole purge, newest first. */
  purgedSources: Array<{ source: string; purgedAt: Date }>;
}

export async function cacheStatus(deps: Pick<TenancyDeps, "db">, scope: ProjectScope): Promise<CacheStatus> {
  const [project] = await deps.db
    .select({ lastPurgedAt: projects.cachePurgedAt })
    .from(projects)
    .where(and(eq(projects.id, scope.projectId), eq(projects.teamId, scope.teamId)));
  if (!project) throw new AppError("NOT_FOUND");
  const purgedSources = await deps.db
    .select({ source: sourcePurges.source, purgedAt: sourcePurges.purgedAt })
    .from(sourcePurges)
    .where(eq(sourcePurges.projectId, scope.projectId))
    .orderBy(desc(sourcePurges.purgedAt))
    .limit(50);
  return { lastPurgedAt: project.lastPurgedAt, purgedSources };
}
