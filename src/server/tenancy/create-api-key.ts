import type { Database } from "@/server/db/client";
import { apiKeys } from "@/server/db/schema";
import { generateKeyPair, type SecretBox } from "@/server/signing";
import { nameSchema } from "./slugs";

export interface CreatedApiKey {
  id: string;
  publicKey: string;
  /** Returned once, at creation; only its sealed form is stored. */
  secretKey: string;
}

export async function createApiKey(
  deps: { db: Database; secretBox: SecretBox },
  input: { projectId: string; name: string; expiresAt?: Date | null; createdBy?: string | null },
): Promise<CreatedApiKey> {
  if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) throw new Error("Expiry must be in the future");
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
    })
    .returning({ id: apiKeys.id });
  return { id: row!.id, ...pair };
}
