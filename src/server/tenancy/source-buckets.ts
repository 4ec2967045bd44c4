import { and, asc, count, eq } from "drizzle-orm";
import type { BucketTarget } from "@/server/config-cache";
import { sourceBuckets } from "@/server/db/schema";
import { bucketSealContext } from "@/server/delivery/buckets";
import { AppError, isAppError } from "@/server/errors";
import { assertBucketEndpoint } from "@/server/source/s3-agent";
import { changesBetween, secretReplaced } from "@/server/audit/changes";
import type { Database } from "@/server/db/client";
import type { TenancyDeps } from "./deps";
import type { ProjectScope } from "./projects";

/** Buckets travel (sealed) with the project's cached config: keep the set small. */
export const MAX_BUCKETS = 10;

export interface BucketInput extends BucketTarget {
  alias: string;
  accessKeyId: string;
  /** Required for a new alias; left out, an existing alias keeps its secret. */
  secretAccessKey?: string;
}

/** What the dashboard shows: never the secret, and the access key id only by its last four characters. */
export interface BucketView extends BucketTarget {
  alias: string;
  accessKeyIdHint: string;
  updatedAt: Date;
}

type Deps = Pick<TenancyDeps, "db" | "invalidate" | "now" | "secretBox" | "hostPolicy" | "audit">;

/** A bucket's settings the log follows: the access key id by its hint, the secret only as "replaced". */
const bucketFields = ["endpoint", "region", "bucket", "prefix", "forcePathStyle", "accessKeyIdHint"] as const;
const hinted = <T extends { accessKeyId: string }>(row: T) => ({
  ...row,
  accessKeyIdHint: `…${row.accessKeyId.slice(-4)}`,
});

export async function listBuckets(deps: Pick<TenancyDeps, "db">, scope: ProjectScope): Promise<BucketView[]> {
  const rows = await deps.db
    .select()
    .from(sourceBuckets)
    .where(eq(sourceBuckets.projectId, scope.projectId))
    .orderBy(asc(sourceBuckets.alias));
  return rows.map(({ alias, endpoint, region, bucket, prefix, forcePathStyle, accessKeyId, updatedAt }) => ({
    alias,
    endpoint,
    region,
    bucket,
    prefix,
    forcePathStyle,
    accessKeyIdHint: `…${accessKeyId.slice(-4)}`,
    updatedAt,
  }));
}

/**
 * Creates or replaces the bucket an alias reads. The endpoint passes the same address policy as
 * source hosts (no private, loopback or metadata address), and the secret is sealed bound to the row.
 * URLs of the alias see the change within the config cache's bound, with new variant keys.
 */
export async function saveBucket(
  deps: Deps,
  scope: ProjectScope,
  input: BucketInput & { actorId: string },
): Promise<BucketView> {
  const endpoint = checkedEndpoint(input.endpoint, deps.hostPolicy.allowLoopback ?? false);
  type Row = typeof sourceBuckets.$inferSelect;
  const recordBucket = (tx: Database, before: Row | null, after: Row, secretGiven: boolean) =>
    deps.audit.record(tx, {
      ...scope,
      action: "bucket.saved",
      target: { id: after.id, label: after.alias },
      changes: {
        ...changesBetween(before && hinted(before), hinted(after), bucketFields),
        ...(secretGiven && secretReplaced("secretAccessKey")),
      },
    });
  const row = await deps.db.transaction(async (tx) => {
    const where = and(eq(sourceBuckets.projectId, scope.projectId), eq(sourceBuckets.alias, input.alias));
    const [existing] = await tx.select().from(sourceBuckets).where(where).for("update");
    const settings = {
      endpoint,
      region: input.region,
      bucket: input.bucket,
      prefix: input.prefix,
      forcePathStyle: input.forcePathStyle,
      accessKeyId: input.accessKeyId,
      updatedBy: input.actorId,
      updatedAt: deps.now(),
      // Saved settings are tried afresh by the next alert check (alerts/bucket-probe.ts).
      credentialsCheckedAt: null,
      credentialsFailure: null,
    };
    if (existing) {
      const secret = input.secretAccessKey
        ? { sealedSecret: deps.secretBox.seal(input.secretAccessKey, bucketSealContext(existing.id)) }
        : {};
      const [saved] = await tx
        .update(sourceBuckets)
        .set({ ...settings, ...secret })
        .where(eq(sourceBuckets.id, existing.id))
        .returning();
      await recordBucket(tx, existing, saved!, input.secretAccessKey !== undefined);
      return saved!;
    }
    if (!input.secretAccessKey)
      throw new AppError("INVALID_INPUT", {
        message: "A new bucket needs its secret access key",
        field: "secretAccessKey",
      });
    const [{ n } = { n: 0 }] = await tx
      .select({ n: count() })
      .from(sourceBuckets)
      .where(eq(sourceBuckets.projectId, scope.projectId));
    if (n >= MAX_BUCKETS)
      throw new AppError("INVALID_INPUT", { message: `A project has at most ${MAX_BUCKETS} buckets` });
    // The id is chosen here so the secret can be sealed bound to it in the same insert.
    const id = crypto.randomUUID();
    const sealedSecret = deps.secretBox.seal(input.secretAccessKey, bucketSealContext(id));
    const [saved] = await tx
      .insert(sourceBuckets)
      .values({ id, projectId: scope.projectId, alias: input.alias, ...settings, sealedSecret })
      .returning();
    await recordBucket(tx, null, saved!, true);
    return saved!;
  });
  await deps.invalidate.project(scope.projectId);
  return (await listBuckets(deps, scope)).find((b) => b.alias === row.alias)!;
}

export async function deleteBucket(
  deps: Pick<TenancyDeps, "db" | "invalidate" | "audit">,
  scope: ProjectScope,
  alias: string,
): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const [deleted] = await tx
      .delete(sourceBuckets)
      .where(and(eq(sourceBuckets.projectId, scope.projectId), eq(sourceBuckets.alias, alias)))
      .returning();
    if (!deleted) throw new AppError("NOT_FOUND", { message: `No bucket named "${alias}"` });
    await deps.audit.record(tx, {
      ...scope,
      action: "bucket.deleted",
      target: { id: deleted.id, label: deleted.alias },
      changes: changesBetween(hinted(deleted), null, bucketFields),
    });
  });
  await deps.invalidate.project(scope.projectId);
}

/** The endpoint as the reader will dial it, without a trailing slash; refusals say why, in the form's words. */
function checkedEndpoint(endpoint: string, allowLoopback: boolean): string {
  try {
    return assertBucketEndpoint(endpoint.trim(), allowLoopback).href.replace(/\/$/, "");
  } catch (error) {
    if (!isAppError(error)) throw error;
    throw new AppError("INVALID_INPUT", {
      message: `Endpoint: ${(error.detail ?? "not allowed").replace(/^bucket endpoint /, "")}`,
      cause: error,
      field: "endpoint",
    });
  }
}
