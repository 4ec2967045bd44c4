import { and, eq, inArray } from "drizzle-orm";
import { keyPolicySchema, type KeyPolicy } from "@/lib/schemas/key-policy";
import type { Database } from "@/server/db/client";
import { presets } from "@/server/db/schema";
import { AppError } from "@/server/errors";
import { findOperation } from "@/server/image/operations/registry";
import type { ProjectScope } from "./projects";
import { normaliseRefererHosts, type SourceHostPolicy } from "./source-hosts";

/**
 * A policy as it is stored: names checked against the operations registry and the project's presets,
 * referer hosts as the project's own list keeps them, lists without repeats. A policy that restricts
 * nothing is stored as null, so the image route skips it. Throws INVALID_INPUT naming what is wrong.
 */
export async function normaliseKeyPolicy(
  db: Pick<Database, "select">,
  scope: ProjectScope,
  input: KeyPolicy | null,
  hostPolicy: SourceHostPolicy,
): Promise<KeyPolicy | null> {
  if (input === null) return null;
  const parsed = keyPolicySchema.parse(input);
  const operations = parsed.operations && [...new Set(parsed.operations)];
  const unknown = operations?.filter((name) => !findOperation(name)) ?? [];
  if (unknown.length > 0) {
    throw new AppError("INVALID_INPUT", {
      message: `No operation is named ${unknown.join(", ")}`,
      field: "operations",
    });
  }
  const presetNames = parsed.presets && [...new Set(parsed.presets)];
  if (presetNames && presetNames.length > 0) {
    const found = await db
      .select({ name: presets.name })
      .from(presets)
      .where(and(eq(presets.projectId, scope.projectId), inArray(presets.name, presetNames)));
    const missing = presetNames.filter((name) => !found.some((row) => row.name === name));
    if (missing.length > 0) {
      throw new AppError("INVALID_INPUT", {
        message: `The project has no preset ${missing.join(", ")}`,
        field: "presets",
      });
    }
  }
  const policy: KeyPolicy = {
    operations,
    presets: presetNames,
    maxExpirySeconds: parsed.maxExpirySeconds,
    referers: keyReferers(parsed.referers, hostPolicy),
  };
  const restricts =
    policy.operations !== null ||
    policy.presets !== null ||
    policy.maxExpirySeconds !== null ||
    policy.referers.length > 0;
  return restricts ? policy : null;
}

/** The project's rules for referer entries, its refusal shown at the policy's own field. */
function keyReferers(entries: readonly string[], hostPolicy: SourceHostPolicy): string[] {
  try {
    return normaliseRefererHosts(entries, hostPolicy);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw new AppError("INVALID_INPUT", { message: error.publicMessage, field: "referers" });
  }
}
