import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isProduction } from "./platform";
import type { PlatformValues } from "./platform-settings";
import type { SecretValues } from "./secret-settings";
import type { ServerValues } from "./server-settings";

/** What the secrets are read from: their own variables, where generated ones are kept, and whether this is production. */
type SecretsEnv = SecretValues &
  Pick<ServerValues, "OPTSTUFF_DATA_DIR"> &
  Pick<PlatformValues, "VERCEL" | "NODE_ENV"> & { DATABASE_URL?: string; OPTSTUFF_METRICS_TOKEN?: string };

export interface Secrets {
  keyEncryption: string;
  keyEncryptionPrevious: string | undefined;
  auth: string;
  /** Null in production without CRON_SECRET: the cron routes then refuse every call. */
  cron: string | null;
}

const required = {
  keyEncryption: "OPTSTUFF_KEY_ENCRYPTION_SECRET",
  auth: "BETTER_AUTH_SECRET",
  cron: "CRON_SECRET",
} as const satisfies Record<string, keyof SecretValues>;

type Generated = Record<keyof typeof required, string>;

export class MissingSecretError extends Error {}

/**
 * In production every secret must come from the environment: a missing one stops the process with its
 * name, except CRON_SECRET, whose absence only closes the cron routes (they never run unauthenticated). Elsewhere, missing secrets are generated once and kept in `<dataDir>/secrets.json` (mode 0600),
 * so the embedded default needs no configuration and keeps its keys readable across restarts.
 */
export function loadSecrets(e: SecretsEnv): Secrets {
  const given = Object.fromEntries(Object.entries(required).map(([k, name]) => [k, e[name]])) as Partial<Generated>;
  if (isProduction(e)) {
    const missing = Object.entries(required)
      .filter(([k]) => k !== "cron" && !given[k as keyof Generated])
      .map(([, n]) => n);
    if (missing.length > 0) {
      throw new MissingSecretError(`Missing required secret(s) in production: ${missing.join(", ")}`);
    }
    return {
      keyEncryption: given.keyEncryption!,
      keyEncryptionPrevious: e.OPTSTUFF_KEY_ENCRYPTION_SECRET_PREVIOUS,
      auth: given.auth!,
      cron: given.cron ?? null,
    };
  }
  const stored = missing(given) ? readOrCreate(e.OPTSTUFF_DATA_DIR) : undefined;
  return {
    keyEncryption: given.keyEncryption ?? stored!.keyEncryption,
    keyEncryptionPrevious: e.OPTSTUFF_KEY_ENCRYPTION_SECRET_PREVIOUS,
    auth: given.auth ?? stored!.auth,
    cron: given.cron ?? stored!.cron,
  };
}

function missing(given: Partial<Generated>): boolean {
  return Object.keys(required).some((k) => !given[k as keyof Generated]);
}

function readOrCreate(dataDir: string): Generated {
  const fresh: Generated = { keyEncryption: generate(), auth: generate(), cron: generate() };
  return JSON.parse(writeOnce(dataDir, "secrets.json", JSON.stringify(fresh, null, 2))) as Generated;
}

/** The file the embedded default's /api/metrics token is generated into. */
export const metricsTokenFile = (dataDir: string) => path.join(path.resolve(dataDir), "metrics-token");

/** Where the /api/metrics token comes from; null when metrics are off: `off`, or production without one. */
export type MetricsTokenSource = { from: "environment"; token: string } | { from: "file"; file: string } | null;

export function metricsTokenSource(e: SecretsEnv): MetricsTokenSource {
  if (e.OPTSTUFF_METRICS_TOKEN === "off") return null;
  if (e.OPTSTUFF_METRICS_TOKEN) return { from: "environment", token: e.OPTSTUFF_METRICS_TOKEN };
  return isProduction(e) ? null : { from: "file", file: metricsTokenFile(e.OPTSTUFF_DATA_DIR) };
}

/**
 * The bearer token of /api/metrics, or null when metrics are off. Outside production a missing one is
 * generated once into `<dataDir>/metrics-token` (mode 0600), the token alone, so a scraper on the
 * machine can read it as it is (Prometheus's `credentials_file`). Its own file: a data directory whose
 * secrets.json predates it gets one without rewriting the others.
 */
export function loadMetricsToken(e: SecretsEnv): string | null {
  const source = metricsTokenSource(e);
  if (source?.from !== "file") return source?.token ?? null;
  // Trimmed: a token an operator wrote in with `echo` ends with a newline no client sends.
  return writeOnce(path.dirname(source.file), path.basename(source.file), generate()).trim();
}

const generate = () => randomBytes(32).toString("base64url");

/** Writes `content` into `dataDir/name` unless the file exists, and returns what the file holds. */
function writeOnce(dataDir: string, name: string, content: string): string {
  const file = path.join(dataDir, name);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Written whole to a private temp file, then hard-linked into place: link() fails if the file exists,
  // so processes starting at once all end up with the first writer's complete content.
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  writeFileSync(temp, content, { mode: 0o600 });
  try {
    linkSync(temp, file);
    return content;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return readFileSync(file, "utf8");
  } finally {
    unlinkSync(temp);
  }
}
