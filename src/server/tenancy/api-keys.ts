import { and, desc, eq, isNull } from "drizzle-orm";
import { keyLimitsSchema, MAX_ROTATION_GRACE_SECONDS } from "@/lib/schemas/api-key";
import type { KeyPolicy } from "@/lib/schemas/key-policy";
import { capOrNull, sameCap, type SpendCap, type SpendCapName } from "@/lib/schemas/spend-cap";
import { nameSchema } from "@/lib/schemas/names";
import { effectiveKeyLimits } from "@/server/config-cache/key-limits";
import { apiKeys } from "@/server/db/schema";
import { AppError } from "@/server/errors";
import {
  assertFutureExpiry,
  assertLimitsInOrder,
  insertApiKey,
  keyChanges,
  keyTarget,
  type CreatedApiKey,
  type KeyLimits,
} from "./create-api-key";
import type { TenancyDeps } from "./deps";
import { normaliseKeyPolicy } from "./key-policy";
import type { ProjectScope } from "./projects";
import { capUses, readKeySpending, type CapUse } from "@/server/spend-caps/spending";

export type KeyStatus = "active" | "rotating" | "expired" | "revoked";

export interface ApiKeyRow {
  id: string;
  name: string;
  publicKey: string;
  status: KeyStatus;
  expiresAt: Date | null;
  revokedAt: Date | null;
  replacedById: string | null;
  rateLimitPerMinute: number | null;
  rateLimitPerDay: number | null;
  /** What the key is held to: its own limits, else the defaults (the image route applies the same). */
  limits: { perMinute: number; perDay: number };
  /** What the key may sign beyond the project's rules; null: all the project allows. */
  policy: KeyPolicy | null;
  /** How much it may spend per UTC day and month; null: no cap. */
  spendCap: SpendCap | null;
  /** The cap it reached and until when its new transforms are refused; null: it is under its caps. */
  capReached: { cap: SpendCapName; until: Date } | null;
  /** Each cap against what the key spent this day or month, as of the last usage flush (list only). */
  capUses?: CapUse[];
  lastUsedAt: Date | null;
  createdAt: Date;
}

const columns = {
  id: apiKeys.id,
  name: apiKeys.name,
  publicKey: apiKeys.publicKey,
  expiresAt: apiKeys.expiresAt,
  revokedAt: apiKeys.revokedAt,
  replacedById: apiKeys.replacedById,
  rateLimitPerMinute: apiKeys.rateLimitPerMinute,
  rateLimitPerDay: apiKeys.rateLimitPerDay,
  policy: apiKeys.policy,
  spendCap: apiKeys.spendCap,
  capReachedName: apiKeys.capReached,
  capReachedUntil: apiKeys.capReachedUntil,
  lastUsedAt: apiKeys.lastUsedAt,
  createdAt: apiKeys.createdAt,
};

export function keyStatus(key: Pick<ApiKeyRow, "revokedAt" | "expiresAt" | "replacedById">, now: Date): KeyStatus {
  if (key.revokedAt) return "revoked";
  if (key.expiresAt && key.expiresAt <= now) return "expired";
  return key.replacedById ? "rotating" : "active";
}

export async function listApiKeys(deps: Pick<TenancyDeps, "db" | "now">, scope: ProjectScope): Promise<ApiKeyRow[]> {
  const rows = await deps.db
    .select(columns)
    .from(apiKeys)
    .where(eq(apiKeys.projectId, scope.projectId))
    .orderBy(desc(apiKeys.createdAt));
  const now = deps.now();
  const spending = rows.some((row) => row.spendCap) ? await readKeySpending(deps.db, now, scope.projectId) : [];
  const usesOf = new Map(spending.map((key) => [key.id, capUses(key)]));
  return rows.map((row) => ({ ...asKeyRow(row, now), capUses: usesOf.get(row.id) ?? [] }));
}

type SelectedKey = Omit<ApiKeyRow, "status" | "limits" | "capReached"> & {
  capReachedName: SpendCapName | null;
  capReachedUntil: Date | null;
};

/** A selected key as the dashboard shows it: its status, its limits in force, the cap it reached if it holds. */
function asKeyRow({ capReachedName, capReachedUntil, ...row }: SelectedKey, now: Date): ApiKeyRow {
  const holds = capReachedName && capReachedUntil && capReachedUntil > now;
  return {
    ...row,
    status: keyStatus(row, now),
    limits: effectiveKeyLimits(row),
    capReached: holds ? { cap: capReachedName, until: capReachedUntil } : null,
  };
}

/**
 * Name, expiry (null: never), limits (null: the defaults) and policy (null: none), of an active key only. A revoked or
 * expired key is not edited back to life, and a rotating key (the old half of a rotation) keeps the
 * grace period the rotation gave it: its expiry cannot be stretched, and there is nothing else about
 * it worth changing before it ends (revoke it to end it sooner). The state is checked in the update's
 * own WHERE, so a key revoked or rotated a moment earlier is not changed either.
 */
export async function updateApiKey(
  deps: Pick<TenancyDeps, "db" | "invalidate" | "now" | "audit" | "hostPolicy">,
  scope: ProjectScope,
  keyId: string,
  input: { name?: string; expiresAt?: Date | null; policy?: KeyPolicy | null } & KeyLimits,
): Promise<ApiKeyRow> {
  const now = deps.now();
  if (input.expiresAt !== undefined) assertFutureExpiry(input.expiresAt, now);
  const limits = keyLimitsSchema.parse({
    rateLimitPerMinute: input.rateLimitPerMinute,
    rateLimitPerDay: input.rateLimitPerDay,
    spendCap: input.spendCap,
  });
  const row = await deps.db.transaction(async (tx) => {
    // Locked while it is changed: a revocation or rotation at the same moment waits, and the entry's
    // "before" is what this change replaced.
    const current = await findKey({ db: tx }, scope, keyId, true);
    assertActive(current, now);
    const perMinute = limits.rateLimitPerMinute !== undefined ? limits.rateLimitPerMinute : current.rateLimitPerMinute;
    const perDay = limits.rateLimitPerDay !== undefined ? limits.rateLimitPerDay : current.rateLimitPerDay;
    assertLimitsInOrder(perMinute, perDay);
    const policy =
      input.policy === undefined ? undefined : await normaliseKeyPolicy(tx, scope, input.policy, deps.hostPolicy);
    const spendCap = limits.spendCap === undefined ? undefined : capOrNull(limits.spendCap);
    // A changed cap releases the key at once; the check after the next flush marks it again if it is still over.
    const capChanged = spendCap !== undefined && !sameCap(spendCap, current.spendCap);
    const [updated] = await tx
      .update(apiKeys)
      .set({
        ...(input.name !== undefined && { name: nameSchema.parse(input.name) }),
        ...(input.expiresAt !== undefined && { expiresAt: input.expiresAt }),
        rateLimitPerMinute: perMinute,
        rateLimitPerDay: perDay,
        ...(policy !== undefined && { policy }),
        ...(capChanged && { spendCap, capReached: null, capReachedUntil: null }),
        updatedAt: now,
      })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.projectId, scope.projectId)))
      .returning(columns);
    // Saved unchanged (a dialog sends every field): nothing happened, nothing is written down.
    const changes = keyChanges(current, updated!);
    if (changes)
      await deps.audit.record(tx, {
        ...scope,
        action: "api_key.updated",
        target: keyTarget(updated!.id, updated!.name, updated!.publicKey),
        changes,
      });
    return updated!;
  });
  await deps.invalidate.apiKeys([row.publicKey]);
  return asKeyRow(row, now);
}

/**
 * Issues a new pair with the same name, limits and expiry, and lets the old pair verify for the grace
 * period only (its expiry is brought forward), so deployed URLs keep working while they are replaced.
 * Only an active key rotates: a revoked or expired key is not brought back, and a key already
 * rotating has its successor.
 */
export async function rotateApiKey(
  deps: Pick<TenancyDeps, "db" | "invalidate" | "secretBox" | "now" | "audit">,
  scope: ProjectScope,
  keyId: string,
  input: { graceSeconds: number; createdBy: string | null },
): Promise<CreatedApiKey & { oldKeyExpiresAt: Date }> {
  const now = deps.now();
  const graceSeconds = Math.min(Math.max(0, Math.floor(input.graceSeconds)), MAX_ROTATION_GRACE_SECONDS);
  const result = await deps.db.transaction(async (tx) => {
    const [old] = await tx
      .select({ ...columns, projectId: apiKeys.projectId })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.projectId, scope.projectId)))
      .for("update");
    if (!old) throw new AppError("NOT_FOUND", { message: "No such key in this project" });
    const status = keyStatus(old, now);
    if (status !== "active")
      throw new AppError("KEY_NOT_ACTIVE", { message: `This key is ${status} and cannot be rotated` });
    const created = await insertApiKey(
      { db: tx, secretBox: deps.secretBox },
      {
        projectId: scope.projectId,
        name: old.name,
        expiresAt: old.expiresAt,
        createdBy: input.createdBy,
        rateLimitPerMinute: old.rateLimitPerMinute,
        rateLimitPerDay: old.rateLimitPerDay,
        policy: old.policy,
        spendCap: old.spendCap,
      },
      now,
    );
    // A reached cap holds the new pair too: its spending counts the old key's (spend-caps/spending.ts).
    if (old.capReachedName)
      await tx
        .update(apiKeys)
        .set({ capReached: old.capReachedName, capReachedUntil: old.capReachedUntil })
        .where(eq(apiKeys.id, created.id));
    const graceEnd = new Date(now.getTime() + graceSeconds * 1000);
    const oldKeyExpiresAt = old.expiresAt && old.expiresAt < graceEnd ? old.expiresAt : graceEnd;
    await tx
      .update(apiKeys)
      .set({ replacedById: created.id, expiresAt: oldKeyExpiresAt, updatedAt: now })
      .where(eq(apiKeys.id, old.id));
    await deps.audit.record(tx, {
      ...scope,
      action: "api_key.rotated",
      target: keyTarget(old.id, old.name, old.publicKey),
      changes: {
        expiresAt: { from: old.expiresAt, to: oldKeyExpiresAt },
        replacedBy: { from: null, to: created.publicKey },
      },
    });
    return { created, oldPublicKey: old.publicKey, oldKeyExpiresAt };
  });
  await deps.invalidate.apiKeys([result.oldPublicKey]);
  return { ...result.created, oldKeyExpiresAt: result.oldKeyExpiresAt };
}

/** Immediate: the cached key is dropped before this returns, so the next image request is refused. */
export async function revokeApiKey(
  deps: Pick<TenancyDeps, "db" | "invalidate" | "now" | "audit">,
  scope: ProjectScope,
  keyId: string,
): Promise<void> {
  const key = await findKey(deps, scope, keyId);
  await deps.db.transaction(async (tx) => {
    const now = deps.now();
    // Revoking a revoked key changes nothing and writes nothing.
    const [revoked] = await tx
      .update(apiKeys)
      .set({ revokedAt: now, updatedAt: now })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.projectId, scope.projectId), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    if (revoked)
      await deps.audit.record(tx, {
        ...scope,
        action: "api_key.revoked",
        target: keyTarget(key.id, key.name, key.publicKey),
        changes: { revokedAt: { from: null, to: now } },
      });
  });
  await deps.invalidate.apiKeys([key.publicKey]);
}

function assertActive(key: Pick<ApiKeyRow, "revokedAt" | "expiresAt" | "replacedById">, now: Date): void {
  const status = keyStatus(key, now);
  if (status === "active") return;
  const why = status === "rotating" ? "rotating (the old half of a rotation): it ends with its grace period" : status;
  throw new AppError("KEY_NOT_ACTIVE", { message: `This key cannot be changed: it is ${why}` });
}

async function findKey(deps: Pick<TenancyDeps, "db">, scope: ProjectScope, keyId: string, lock = false) {
  const query = deps.db
    .select(columns)
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.projectId, scope.projectId)));
  const [row] = lock ? await query.for("update") : await query;
  if (!row) throw new AppError("NOT_FOUND", { message: "No such key in this project" });
  return row;
}
