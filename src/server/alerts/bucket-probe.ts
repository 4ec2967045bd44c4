import { and, eq, inArray, isNull, lt, notExists, or, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { projects, sourceBuckets, teamAlertSettings } from "@/server/db/schema";
import { bucketSealContext } from "@/server/delivery/buckets";
import { AppError } from "@/server/errors";
import type { SecretBox } from "@/server/signing";
import type { BucketSettings, SourceFetcher } from "@/server/source";

/** Each bucket's credentials are tried at most this often, a few buckets per check. */
export const PROBE_EVERY_MS = 15 * 60_000;
const PROBES_PER_CHECK = 30;
/** Probes in flight at once. */
const PROBES_AT_ONCE = 10;
/** A key nobody writes: reading it says whether the credentials are accepted, whatever the bucket holds. */
const PROBE_KEY = "optstuff-credentials-check";
/** S3's names for credentials it does not accept (the signature checked before any permission). */
const REFUSED_CREDENTIALS = new Set(["InvalidAccessKeyId", "SignatureDoesNotMatch"]);

export interface ProbeDeps {
  db: Database;
  secretBox: SecretBox;
  /** A fetcher as the image route's (the same address policy and limits), with clients of its own. */
  fetcher: SourceFetcher;
  now: () => Date;
}

/**
 * Why the bucket refused the credentials, null when it accepted them, undefined when the probe could
 * not tell (the endpoint unreachable, a timeout: the failure stays as it was). A missing object and
 * AccessDenied both come after the signature was accepted: the credentials work.
 */
export async function probeCredentials(
  fetcher: SourceFetcher,
  alias: string,
  settings: BucketSettings,
): Promise<string | null | undefined> {
  try {
    await fetcher.fetch({ kind: "bucket", alias, key: PROBE_KEY }, { bucket: settings });
    return null;
  } catch (error) {
    if (!(error instanceof AppError)) return undefined;
    if (error.code === "SOURCE_NOT_FOUND") return null;
    const name = (error.cause as { name?: unknown } | undefined)?.name;
    if (typeof name === "string" && REFUSED_CREDENTIALS.has(name))
      return name === "InvalidAccessKeyId"
        ? "the bucket does not know the access key id"
        : "the bucket refused the secret access key";
    // Denied or missing: the signature was accepted. Anything else (a 5xx, SlowDown) says nothing.
    const status = (error.cause as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
    return status === 403 || status === 404 ? null : undefined;
  }
}

/**
 * Claims the buckets not tried for PROBE_EVERY_MS (skipping those another instance is trying) and tries
 * their credentials, recording why they failed or clearing it. Returns how many were tried.
 */
export async function probeBuckets(deps: ProbeDeps): Promise<number> {
  const now = deps.now();
  const due = or(
    isNull(sourceBuckets.credentialsCheckedAt),
    lt(sourceBuckets.credentialsCheckedAt, new Date(now.getTime() - PROBE_EVERY_MS)),
  );
  // A team that turned the alert off has its buckets left alone.
  const turnedOff = deps.db
    .select({ one: sql`1` })
    .from(teamAlertSettings)
    .innerJoin(projects, eq(projects.teamId, teamAlertSettings.teamId))
    .where(and(eq(projects.id, sourceBuckets.projectId), eq(teamAlertSettings.bucketCredentials, false)));
  const claimed = await deps.db.transaction(async (tx) => {
    const ids = await tx
      .select({ id: sourceBuckets.id })
      .from(sourceBuckets)
      .where(and(due, notExists(turnedOff)))
      .orderBy(sql`${sourceBuckets.credentialsCheckedAt} asc nulls first`)
      .limit(PROBES_PER_CHECK)
      .for("update", { skipLocked: true });
    if (ids.length === 0) return [];
    return tx
      .update(sourceBuckets)
      .set({ credentialsCheckedAt: now })
      .where(
        inArray(
          sourceBuckets.id,
          ids.map((row) => row.id),
        ),
      )
      .returning();
  });
  for (let i = 0; i < claimed.length; i += PROBES_AT_ONCE)
    await Promise.all(claimed.slice(i, i + PROBES_AT_ONCE).map((bucket) => probeOne(deps, bucket, now)));
  return claimed.length;
}

/** Tries one claimed bucket and records what it said (nothing when it could not tell). */
async function probeOne(deps: ProbeDeps, bucket: typeof sourceBuckets.$inferSelect, now: Date): Promise<void> {
  // A secret that no longer opens (keys rotated without the previous one) is the reseal's to fix.
  let secretAccessKey: string;
  try {
    secretAccessKey = deps.secretBox.open(bucket.sealedSecret, bucketSealContext(bucket.id));
  } catch {
    return;
  }
  const settings: BucketSettings = {
    endpoint: bucket.endpoint,
    region: bucket.region,
    bucket: bucket.bucket,
    prefix: bucket.prefix,
    forcePathStyle: bucket.forcePathStyle,
    accessKeyId: bucket.accessKeyId,
    secretAccessKey,
  };
  const failure = await probeCredentials(deps.fetcher, bucket.alias, settings);
  if (failure === undefined) return;
  // Only if the settings are still those tried: a save since then has cleared the state.
  await deps.db
    .update(sourceBuckets)
    .set({ credentialsFailure: failure })
    .where(and(eq(sourceBuckets.id, bucket.id), eq(sourceBuckets.credentialsCheckedAt, now)));
}
