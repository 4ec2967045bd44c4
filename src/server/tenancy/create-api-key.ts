import { and, count, eq, gt, isNull, or } from "drizzle-orm";
import type { z } from "zod";
import { keyLimitsSchema } from "@/lib/schemas/api-key";
import type { KeyPolicy } from "@/lib/schemas/key-policy";
import { capOrNull, type SpendCap } from "@/lib/schemas/spend-cap";
import { nameSchema } from "@/lib/schemas/names";
import type { AuditTrail } from "@/server/audit/trail";
import type { Database } from "@/server/db/client";
import { apiKeys, projects } from "@/server/db/schema";
import { AppError } from "@/server/errors";
import { generateKeyPair, type SecretBox } from "@/server/signing";
import { changesBetween } from "@/server/audit/changes";
import { assertBelowQuota, quotas } from "./quotas";

export interface CreatedApiKey {
  id: string;
  publicKey: string;
  /** Returned once, at creation; only its sealed form is stored. */
  secretKey: string;
}

export type KeyLimits = z.infer<typeof keyLimitsSchema>;

export function assertFutureExpiry(expiresAt: Date | null | undefined, now: Date): void {
  if (expiresAt && expiresAt.getTime() <= now.getTime())
    throw new AppError("INVALID_INPUT", { message: "Expiry must be in the future" });
}

/** A key's own limits, where both are set, allow no more a minute than a day. */
export function assertLimitsInOrder(perMinute: number | null | undefined, perDay: number | null | undefined): void {
  if (perMinute != null && perDay != null && perMinute > perDay)
    throw new AppError("INVALID_INPUT", {
      message: "The per-minute limit cannot exceed the per-day limit",
      field: "rateLimitPerMinute",
    });
}

/** A new key: its name, expiry (null: never), limits (null: the instance's) and maker (null: the command line). */
export type NewKey = { name: string; expiresAt?: Date | null; createdBy?: string | null } & KeyLimits;

/**
 * Makes a key, within the active keys a project may have (quotas.ts): the dashboard's, the command
 * line's and the quickstart's. One clock reading decides both the expiry check and the quota.
 */
export async function createApiKey(
  deps: { db: Database; secretBox: SecretBox; audit: AuditTrail; now: () => Date },
  scope: { projectId: string },
  input: NewKey,
): Promise<CreatedApiKey> {
  const now = deps.now();
  const { projectId } = scope;
  return deps.db.transaction(async (tx) => {
    const teamId = await assertRoomForKey(tx, projectId, now);
    const created = await insertApiKey({ db: tx, secretBox: deps.secretBox }, { ...input, projectId }, now);
    await deps.audit.record(tx, {
      teamId,
      projectId,
      action: "api_key.created",
      target: keyTarget(created.id, input.name, created.publicKey),
      changes: keyChanges(null, { ...input, publicKey: created.publicKey }),
    });
    return created;
  });
}

/** How the log names a key: its name and public half (never the secret). */
export function keyTarget(id: string, name: string, publicKey: string) {
  return { id, label: `${name} (${publicKey})` };
}

/** The fields of a key the log follows. */
export function keyChanges(before: KeyFields | null, after: KeyFields | null) {
  return changesBetween(before, after, [
    "name",
    "publicKey",
    "expiresAt",
    "rateLimitPerMinute",
    "rateLimitPerDay",
    "policy",
    "spendCap",
  ]);
}
type KeyFields = {
  name?: string;
  publicKey?: string;
  expiresAt?: Date | null;
  rateLimitPerMinute?: number | null;
  rateLimitPerDay?: number | null;
  policy?: KeyPolicy | null;
  spendCap?: SpendCap | null;
};

/** keyStatus(…) === "active", as SQL: neither revoked nor replaced by a rotation nor expired. */
export function isActiveKey(now: Date) {
  return and(
    isNull(apiKeys.revokedAt),
    isNull(apiKeys.replacedById),
    or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)),
  );
}

/**
 * Counted under a lock of the project's row (NO KEY UPDATE, which conflicts with itself and with the
 * FOR UPDATE a project's deletion takes): two creations at once count in turn, and no key is made for
 * a project being deleted.
 */
async function assertRoomForKey(tx: Database, projectId: string, now: Date): Promise<string> {
  const [project] = await tx
    .select({ id: projects.id, teamId: projects.teamId })
    .from(projects)
    .where(eq(projects.id, projectId))
    .for("no key update");
  if (!project) throw new AppError("NOT_FOUND", { message: "Project not found" });
  const [held] = await tx
    .select({ n: count() })
    .from(apiKeys)
    .where(and(eq(apiKeys.projectId, projectId), isActiveKey(now)));
  assertBelowQuota(quotas.activeKeysPerProject, held?.n ?? 0);
  return project.teamId;
}

/**
 * The insert alone, outside the quota: for a rotation, whose new key replaces an active one (the
 * caller holds the old key's row locked in its transaction).
 */
export async function insertApiKey(
  deps: { db: Database; secretBox: SecretBox },
  input: NewKey & { projectId: string; policy?: KeyPolicy | null },
  now: Date,
): Promise<CreatedApiKey> {
  assertFutureExpiry(input.expiresAt, now);
  const limits = keyLimitsSchema.parse({
    rateLimitPerMinute: input.rateLimitPerMinute,
    rateLimitPerDay: input.rateLimitPerDay,
    spendCap: input.spendCap,
  });
  assertLimitsInOrder(limits.rateLimitPerMinute, limits.rateLimitPerDay);
  const pair = generateKeyPair();
  const [row] = await deps.db
    .insert(apiKeys)
    .values({
      projectId: input.projectId,
      name: nameSchema.parse(input.name),
      publicKey: pair.publicKey,
      encryptedSecret: deps.secretBox.seal(pair.secretKey, pair.publicKey),
      expiresAt: input.expiresAt ?? null,
      createdBy: input.createdBy ?? null,
      rateLimitPerMinute: limits.rateLimitPerMinute ?? null,
      rateLimitPerDay: limits.rateLimitPerDay ?? null,
      // Only a rotation passes one: the new pair keeps what the old one was allowed, already checked.
      policy: input.policy ?? null,
      spendCap: capOrNull(limits.spendCap ?? null),
    })
    .returning({ id: apiKeys.id });
  return { id: row!.id, ...pair };
}
