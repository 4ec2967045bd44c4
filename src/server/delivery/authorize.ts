import type { ApiKeyConfig, ConfigStore, ProjectConfig } from "@/server/config-cache";
import { AppError } from "@/server/errors";
import { endsLikeExpiry, signaturePayload, verifySignature, type SecretBox } from "@/server/signing";
import type { ImageRequestParts } from "./parse-request";

export interface Authorized {
  apiKey: ApiKeyConfig;
  project: ProjectConfig;
  /** How long caches may keep the answer: until the signature expires, at most a year. */
  maxSeconds: number;
}

const YEAR = 31_536_000;

/** Whose request this is, once the key is known to belong to the URL's project. */
export interface RequestIds {
  projectId: string;
  apiKeyId: string;
}

/** Refusals thrown after identification, with the ids their request-log row carries. */
const attributed = new WeakMap<object, RequestIds>();

/** The project and key a refusal belongs to, when authorization got that far. */
export function attributionOf(error: unknown): RequestIds | undefined {
  return typeof error === "object" && error !== null ? attributed.get(error) : undefined;
}

export interface AuthorizeDeps {
  config: ConfigStore;
  secretBox: SecretBox;
  now: () => Date;
}

/**
 * Key and project, then key state, then signature, then expiry. Once the key is known to belong to the
 * URL's project, a refusal carries both ids (attributionOf), so it reaches that project's request log.
 * Key state is checked before the signature so a revoked key fails the same way whatever was signed;
 * the signature is checked before `exp` so an expired URL is only reported as such when it was
 * genuinely signed.
 */
export async function authorizeRequest(parts: ImageRequestParts, deps: AuthorizeDeps): Promise<Authorized> {
  const apiKey = await deps.config.getApiKey(parts.publicKey);
  if (!apiKey) throw new AppError("INVALID_KEY", { detail: "unknown public key" });
  const project = await deps.config.getProject(apiKey.projectId);
  if (!project) throw new AppError("INVALID_KEY", { detail: "key's project is gone" });
  if (project.slug !== parts.projectSlug) throw new AppError("KEY_PROJECT_MISMATCH");
  const now = deps.now();
  try {
    verify(parts, apiKey, deps.secretBox, now);
  } catch (error) {
    // verify throws AppErrors only.
    attributed.set(error as AppError, { projectId: project.id, apiKeyId: apiKey.id });
    throw error;
  }
  return { apiKey, project, maxSeconds: lifetimeSeconds(parts.exp, now.getTime()) };
}

/** How long caches may keep an answer to a URL that expires at `exp` (Unix seconds): until then, within a year. */
export function lifetimeSeconds(exp: number | undefined, nowMs: number): number {
  if (exp === undefined) return YEAR;
  return Math.max(0, Math.min(YEAR, Math.floor(exp - nowMs / 1000)));
}

function verify(parts: ImageRequestParts, apiKey: ApiKeyConfig, secretBox: SecretBox, now: Date): void {
  if (apiKey.revokedAt && apiKey.revokedAt <= now) throw new AppError("KEY_REVOKED");
  if (apiKey.expiresAt && apiKey.expiresAt <= now) throw new AppError("KEY_EXPIRED");

  const secret = openSecret(secretBox, apiKey);
  const payload = signaturePayload(parts.operationsSegment, parts.source, parts.expText);
  if (parts.expText === undefined && endsLikeExpiry(payload)) {
    throw new AppError("SIGNATURE_INVALID", {
      detail: "payload ends in ?exp=N without an exp parameter (expiry moved into the source)",
    });
  }
  if (!verifySignature(secret, payload, parts.signature)) throw new AppError("SIGNATURE_INVALID");
  if (parts.exp !== undefined && parts.exp * 1000 <= now.getTime()) throw new AppError("SIGNATURE_EXPIRED");
}

function openSecret(box: SecretBox, apiKey: ApiKeyConfig): string {
  try {
    return box.open(apiKey.encryptedSecret, apiKey.publicKey);
  } catch (cause) {
    // A secret that no configured master opens is an operator error, not the caller's: 500 and logged.
    throw new AppError("INTERNAL", { detail: "API key secret could not be opened (wrong master secret?)", cause });
  }
}
