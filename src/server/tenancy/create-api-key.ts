import type { z } from "zod";
import { keyLimitsSchema } from "@/lib/schemas/api-key";
import { nameSchema } from "@/lib/schemas/names";
import type { Database } from "@/server/db/client";
import { apiKeys } from "@/server/db/schema";
import { AppError } from "@/server/errors";
import { generateKeyPair, type SecretBox } from "@/server/signing";

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

export async function createApiKey(
  deps: { db: Database; secretBox: SecretBox },
  input: { projectId: string; name: string; expiresAt?: Date | null; createdBy?: string | null } & KeyLimits,
  now = new Date(),
): Promise<CreatedApiKey> {
  assertFutureExpiry(input.expiresAt, now);
  const limits = keyLimitsSchema.parse({
    rateLimitPerMinute: input.rateLimitPerMinute,
    rateLimitPerDay: input.rateLimitPerDay,
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
    })
    .returning({ id: apiKeys.id });
  return { id: row!.id, ...pair };
}
