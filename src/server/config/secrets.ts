import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isProduction, type Env } from "@/env";

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
} as const satisfies Record<string, keyof Env>;

type Generated = Record<keyof typeof required, string>;

export class MissingSecretError extends Error {}

/**
 * In production every secret must come from the environment: a missing one stops the process with its
 * name, except CRON_SECRET, whose absence only closes the cron routes (they never run unauthenticated). Elsewhere, missing secrets are generated once and kept in `<dataDir>/secrets.json` (mode 0600),
 * so the embedded default needs no configuration and keeps its keys readable across restarts.
 */
export function loadSecrets(e: Env): Secrets {
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
  const file = path.join(dataDir, "secrets.json");
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const fresh: Generated = {
    keyEncryption: randomBytes(32).toString("base64url"),
    auth: randomBytes(32).toString("base64url"),
    cron: randomBytes(32).toString("base64url"),
  };
  // Written whole to a private temp file, then hard-linked into place: link() fails if the file exists,
  // so processes starting at once all end up with the first writer's complete secrets.
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  writeFileSync(temp, JSON.stringify(fresh, null, 2), { mode: 0o600 });
  try {
    linkSync(temp, file);
    return fresh;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return JSON.parse(readFileSync(file, "utf8")) as Generated;
  } finally {
    unlinkSync(temp);
  }
}
