import { bucketedExpiry, signUrl } from "@optstuff/client";
import { and, eq } from "drizzle-orm";
import { MAX_TEST_URL_SECONDS } from "@/lib/schemas/developer";
import { apiKeys } from "@/server/db/schema";
import { AppError, refusingField } from "@/server/errors";
import { parseOperations } from "@/server/image";
import { endsLikeExpiry, signaturePayload } from "@/server/signing";
import { parseSource } from "@/server/source";
import { keyStatus } from "./api-keys";
import { keyTarget } from "./create-api-key";
import type { TenancyDeps } from "./deps";
import type { ProjectScope } from "./projects";
import { can, type TeamRole } from "./roles";
import { assertTesterSourceAllowed } from "./tester-source-policy";

/**
 * Signs a URL with one of the project's keys on the server, so the URL tester never sends a secret to
 * the browser. The operations, the source and the project's source policy are checked the way the
 * image route will check them, so a mistake is reported at its field instead of as a refused URL.
 */
export async function signTestUrl(
  deps: Pick<TenancyDeps, "db" | "secretBox" | "now" | "audit"> & { baseUrl: string },
  scope: ProjectScope & { projectSlug: string; role: TeamRole },
  input: { keyId: string; operations: string; source: string; expiresInSeconds: number | null },
): Promise<{ url: string; expiresAt: Date | null }> {
  if (input.expiresInSeconds === null && !can(scope.role, "developer.signPermanent")) {
    throw new AppError("NOT_PERMITTED", {
      message: "Choose an expiry (at most 7 days): only an admin can sign a URL that never expires",
    });
  }
  const operations = input.operations.trim() || "_";
  const source = input.source.trim().replace(/^\/+/, "");
  refusingField("operations", () => parseOperations(operations));
  const location = refusingField("source", () => parseSource(source));
  const seconds =
    input.expiresInSeconds === null
      ? null
      : Math.min(Math.max(1, Math.floor(input.expiresInSeconds)), MAX_TEST_URL_SECONDS);
  if (seconds === null && endsLikeExpiry(signaturePayload(operations, source, undefined))) {
    throw new AppError("INVALID_INPUT", {
      message: "A source ending in ?exp=N can only be signed with an expiry: without one it reads as an expiring URL",
      field: "source",
    });
  }
  await assertTesterSourceAllowed(deps, scope, location);
  const [key] = await deps.db
    .select({
      name: apiKeys.name,
      publicKey: apiKeys.publicKey,
      encryptedSecret: apiKeys.encryptedSecret,
      revokedAt: apiKeys.revokedAt,
      expiresAt: apiKeys.expiresAt,
      replacedById: apiKeys.replacedById,
    })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, input.keyId), eq(apiKeys.projectId, scope.projectId)));
  if (!key) throw new AppError("NOT_FOUND", { message: "No such key in this project" });
  const now = deps.now();
  const status = keyStatus(key, now);
  if (status === "revoked" || status === "expired")
    throw new AppError("KEY_NOT_ACTIVE", { message: `This key is ${status}: pick an active key` });
  // The integrators' kit builds the URL, as their servers would. From the whole second and with a
  // one-second bucket, the expiry is exactly the lifetime asked for (never past the 7-day bound).
  const nowMs = Math.floor(now.getTime() / 1000) * 1000;
  const url = await signUrl({
    baseUrl: deps.baseUrl,
    projectSlug: scope.projectSlug,
    publicKey: key.publicKey,
    secretKey: deps.secretBox.open(key.encryptedSecret, key.publicKey),
    operations,
    source,
    ...(seconds === null ? {} : { expiresIn: seconds, expiryBucket: 1, now: nowMs }),
  });
  const exp = seconds === null ? null : bucketedExpiry(nowMs, seconds, 1);
  // A URL signed here works for anyone who holds it until it expires (a permanent one forever).
  await deps.audit.record(deps.db, {
    teamId: scope.teamId,
    projectId: scope.projectId,
    action: "api_key.url_signed",
    target: keyTarget(input.keyId, key.name, key.publicKey),
    changes: {
      url: { from: null, to: `${operations}/${source}` },
      expiresAt: { from: null, to: exp === null ? "never" : new Date(exp * 1000) },
    },
  });
  return { url, expiresAt: exp === null ? null : new Date(exp * 1000) };
}
