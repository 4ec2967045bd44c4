import { and, eq } from "drizzle-orm";
import type { KeyPolicy } from "@/lib/schemas/key-policy";
import type { Database } from "@/server/db/client";
import { apiKeys } from "@/server/db/schema";
import { enforceKeyPolicy } from "@/server/delivery/key-policy";
import { AppError } from "@/server/errors";
import { parseOperations } from "@/server/image";
import { servedImpact, type ServedImpact } from "./served-impact";

/**
 * What a key's policy, as typed in its dialog, would have refused of the images this key was served
 * lately, by the same check the image route makes. The request log keeps operations, not `exp` or the
 * Referer: the lifetime and referer rules are not judged here (the dialog says so).
 */
export async function keyPolicyImpact(
  db: Database,
  scope: { projectId: string },
  keyId: string,
  policy: KeyPolicy,
  now = new Date(),
): Promise<ServedImpact> {
  const [key] = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.projectId, scope.projectId)))
    .limit(1);
  if (!key) throw new AppError("NOT_FOUND", { message: "No such key in this project" });
  const judged = { policy: { ...policy, maxExpirySeconds: null, referers: [] } };
  return servedImpact(db, scope.projectId, (segment) => refusedBy(judged, segment), { now, apiKeyId: key.id });
}

function refusedBy(apiKey: { policy: KeyPolicy }, segment: string): boolean {
  try {
    enforceKeyPolicy(
      apiKey,
      { operationsSegment: segment, operations: parseOperations(segment), exp: undefined },
      null,
      0,
    );
    return false;
  } catch (error) {
    // A segment the route no longer parses is not this policy's refusal.
    return error instanceof AppError && error.code === "KEY_POLICY_REFUSED";
  }
}
