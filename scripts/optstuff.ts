/**
 * Command-line administration without the dashboard. Works on the embedded database (stop the server
 * first: an embedded database has one owner at a time) and on DATABASE_URL.
 *
 *   npm run optstuff -- bootstrap [--team demo] [--project demo] [--sources local,cdn.example.com]
 *   npm run optstuff -- key --team T --project P [--name N] [--expires-in-days D]
 *   npm run optstuff -- sources --team T --project P --set host1,host2
 *   npm run optstuff -- purge --team T --project P [--source https://host/path.jpg]   (without --source: the whole project)
 *   npm run optstuff -- reseal   (after setting a new OPTSTUFF_KEY_ENCRYPTION_SECRET with the old one as …_PREVIOUS)
 *   npm run optstuff -- reset-limits --key pk_…   (clears a key's rate-limit windows in Redis)
 *   npm run optstuff -- sign [--credentials-file .data/quickstart.env] [--operations w_640,f_auto] [--expires-in S] <source>
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ZodError } from "zod";
import { env, publicBaseUrl } from "@/env";
import { openDatabase } from "@/server/db/client";
import { projects } from "@/server/db/schema";
import { serviceOptionsFromEnv } from "@/server/service-options";
import { createConfigInvalidator } from "@/server/config-cache";
import { createCoordination } from "@/server/coordination/create-coordination";
import { createCounters } from "@/server/coordination/counters";
import { signUrl } from "@optstuff/client";
import { createLogger } from "@/server/log";
import { createSecretBox, isPublicKeyShape } from "@/server/signing";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { createApiKey } from "@/server/tenancy/create-api-key";
import { findTeamBySlug } from "@/server/tenancy/teams";
import { findProject, updateProject } from "@/server/tenancy/projects";
import { resealSecrets } from "@/server/tenancy/reseal-secrets";
import { purgeResults } from "@/server/tenancy/cache-purge";
import { createResultStore } from "@/server/result-store/create-store";

const DEMO_SOURCE = "local/photo.jpg";
const DEMO_OPERATIONS = "w_640,q_75,f_webp";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    team: { type: "string", default: "demo" },
    project: { type: "string", default: "demo" },
    sources: { type: "string" },
    set: { type: "string" },
    name: { type: "string" },
    key: { type: "string" },
    "expires-in-days": { type: "string" },
    "base-url": { type: "string" },
    /** Only when the database has no project yet (first start of the embedded default). */
    "if-empty": { type: "boolean", default: false },
    /** Write the credentials to this file (mode 0600) instead of printing the secret. */
    "credentials-file": { type: "string" },
    operations: { type: "string", default: "w_640,f_auto" },
    source: { type: "string" },
    "expires-in": { type: "string" },
  },
});

async function main(): Promise<void> {
  if (positionals[0] === "sign") return signFromEnvFile();
  if (positionals[0] === "reset-limits") return resetLimits();
  const e = env();
  const options = serviceOptionsFromEnv(e);
  const database = await openDatabase(options.database);
  const deps = {
    db: database.db,
    secretBox: createSecretBox(options.secrets.keyEncryption, options.secrets.keyEncryptionPrevious),
  };
  // Write paths invalidate what the image route caches; other instances' L1 expires within 1 s.
  const invalidate = createConfigInvalidator({
    l1: null,
    kv: options.redis ? createCoordination(options.redis).kv : null,
    logger: createLogger("warn"),
    counters: createCounters(),
  });
  const baseUrl = values["base-url"] ?? publicBaseUrl(e);
  try {
    const command = positionals[0] ?? "bootstrap";
    if (command === "bootstrap") {
      if (values["if-empty"] && (await hasAnyProject(deps.db))) return;
      const sources = values.sources?.split(",") ?? (options.localSourceRoot ? ["local"] : undefined);
      const result = await bootstrap(deps, {
        teamSlug: values.team!,
        projectSlug: values.project!,
        keyName: values.name ?? "default",
        sourceHosts: sources,
        allowLoopback: e.OPTSTUFF_ALLOW_LOOPBACK_SOURCES,
      });
      if (!result.created.project) await invalidate.project(result.project.id);
      await printCredentials(
        baseUrl,
        result.project.slug,
        result.key,
        result.project.allowedSourceHosts,
        values["credentials-file"],
      );
    } else if (command === "key") {
      const project = await resolveProject(deps.db);
      const days = values["expires-in-days"] ? Number(values["expires-in-days"]) : undefined;
      const expiresAt = days ? new Date(Date.now() + days * 86_400_000) : null;
      const key = await createApiKey(deps, { projectId: project.id, name: values.name ?? "cli", expiresAt });
      await printCredentials(baseUrl, project.slug, key, project.allowedSourceHosts);
    } else if (command === "sources") {
      const project = await resolveProject(deps.db);
      const updated = await updateProject(
        { db: deps.db, invalidate, hostPolicy: { allowLoopback: e.OPTSTUFF_ALLOW_LOOPBACK_SOURCES } },
        { teamId: project.teamId, projectId: project.id },
        { allowedSourceHosts: (values.set ?? "").split(",").filter(Boolean) },
      );
      console.log(
        `Allowed source hosts of ${updated.slug}: ${updated.allowedSourceHosts.join(", ") || "(none: remote sources refused)"}`,
      );
    } else if (command === "purge") {
      const project = await resolveProject(deps.db);
      const store = options.resultStore ? await createResultStore(options.resultStore) : null;
      try {
        const purged = await purgeResults(
          { db: deps.db, invalidate, store, logger: createLogger("warn"), now: () => new Date() },
          { teamId: project.teamId, projectId: project.id },
          { source: values.source, actorId: null },
        );
        console.log(
          `Purged ${purged.source ?? `every result of ${project.slug}`}${purged.widened ? " (widened to the whole project: too many single purges)" : ""}; ${purged.deletedObjects} stored result(s) deleted.`,
        );
        console.log(`# CDN: purge the cache tag ${purged.cdnTag}`);
      } finally {
        await store?.close();
      }
    } else if (command === "reseal") {
      const { resealed, current, publicKeys, projectIds } = await resealSecrets(deps);
      await invalidate.apiKeys(publicKeys);
      for (const projectId of projectIds) await invalidate.project(projectId);
      console.log(
        `Re-sealed ${resealed} secret(s) (API keys and private buckets) under the current master; ${current} were already current.`,
      );
    } else {
      throw new UsageError(
        `Unknown command "${command}". Commands: bootstrap, key, sources, purge, reseal, reset-limits, sign.`,
      );
    }
  } finally {
    await database.close();
  }
}

async function resolveProject(db: Parameters<typeof findTeamBySlug>[0]) {
  const team = await findTeamBySlug(db, values.team!);
  if (!team) throw new UsageError(`No team with slug "${values.team}"`);
  const project = await findProject(db, team.id, values.project!);
  if (!project) throw new UsageError(`No project "${values.project}" in team "${team.slug}"`);
  return { ...project, projectId: project.id };
}

async function printCredentials(
  baseUrl: string,
  projectSlug: string,
  key: { publicKey: string; secretKey: string },
  hosts: string[],
  envFile?: string,
): Promise<void> {
  const lines = [
    `OPTSTUFF_BASE_URL=${baseUrl}`,
    `OPTSTUFF_PROJECT_SLUG=${projectSlug}`,
    `OPTSTUFF_PUBLIC_KEY=${key.publicKey}`,
    `OPTSTUFF_SECRET_KEY=${key.secretKey}`,
  ];
  if (envFile) {
    writeFileSync(envFile, `${lines.join("\n")}\n`, { mode: 0o600 });
    console.log(`Project "${projectSlug}" is ready; its credentials are in ${envFile} (mode 0600).`);
  } else {
    console.log(`${lines.join("\n")}\n`);
    console.log("# The secret key is shown once: keep it on your server, never in browser code.");
  }
  if (hosts.includes("local")) {
    const url = await signUrl({ baseUrl, projectSlug, ...key, operations: DEMO_OPERATIONS, source: DEMO_SOURCE });
    console.log(`# A signed URL for a demo image:\n${url}`);
  } else {
    console.log(`# Allowed source hosts: ${hosts.join(", ") || "(none)"}`);
  }
}

/** Administrators: forget a key's usage in both windows, on every instance (they share Redis). */
async function resetLimits(): Promise<void> {
  const publicKey = values.key;
  if (!publicKey || !isPublicKeyShape(publicKey)) throw new UsageError("Usage: optstuff reset-limits --key pk_…");
  const { redis } = serviceOptionsFromEnv(env());
  if (!redis) {
    console.log(
      "Coordination is in process (no UPSTASH_REDIS_REST_URL): limits live in the server process and restart with it.",
    );
    return;
  }
  await createCoordination(redis).limiter.reset(publicKey);
  console.log(`Rate-limit windows of ${publicKey} cleared.`);
}

/** Needs no database, so it works while the embedded server owns it. */
async function signFromEnvFile(): Promise<void> {
  const file = values["credentials-file"] ?? `${env().OPTSTUFF_DATA_DIR}/quickstart.env`;
  const vars = Object.fromEntries(
    readFileSync(file, "utf8")
      .split("\n")
      .map((line) => line.trim().match(/^(OPTSTUFF_[A-Z_]+)=(.*)$/))
      .filter((m): m is RegExpMatchArray => m !== null)
      .map((m) => [m[1], m[2]]),
  );
  const source = positionals[1];
  if (!source) throw new UsageError("Usage: optstuff sign [--credentials-file F] [--operations OPS] <source>");
  const expiresIn = values["expires-in"] ? Number(values["expires-in"]) : undefined;
  const url = await signUrl({
    baseUrl: values["base-url"] ?? vars.OPTSTUFF_BASE_URL!,
    projectSlug: vars.OPTSTUFF_PROJECT_SLUG!,
    publicKey: vars.OPTSTUFF_PUBLIC_KEY!,
    secretKey: vars.OPTSTUFF_SECRET_KEY!,
    operations: values.operations!,
    source,
    ...(expiresIn ? { expiresIn, expiryBucket: 1 } : {}),
  });
  console.log(url);
}

async function hasAnyProject(db: Parameters<typeof findTeamBySlug>[0]): Promise<boolean> {
  const [row] = await db.select({ id: projects.id }).from(projects).limit(1);
  return row !== undefined;
}

class UsageError extends Error {}

main().catch((error: unknown) => {
  if (error instanceof ZodError) console.error(`Invalid input: ${error.issues.map((i) => i.message).join("; ")}`);
  else if (error instanceof UsageError) console.error(error.message);
  else console.error(error instanceof Error ? error.message : error);
  process.exit(2);
});
