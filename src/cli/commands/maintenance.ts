import type { Command } from "@commander-js/extra-typings";
import { loadSecrets } from "@/server/config/secrets";
import { createCoordination } from "@/server/coordination/create-coordination";
import { createResultStore } from "@/server/result-store/create-store";
import { redisOf } from "@/server/coordination/settings";
import { resultStoreOf } from "@/server/result-store/settings";
import { purgeResults } from "@/server/tenancy/cache-purge";
import { keyTarget } from "@/server/tenancy/create-api-key";
import { resealSecrets } from "@/server/tenancy/reseal-secrets";
import * as arg from "../arguments";
import { JSON_HELP, PROJECT_HELP, TEAM_HELP, type Cli } from "../command-context";
import { cliLogger, withWriteDatabase } from "../context";
import { findProjectKey } from "../scope";
import { CliError } from "../errors";
import { resolveProject } from "../scope";

export function registerMaintenance(program: Command, cli: Cli): void {
  program
    .command("purge")
    .description("make a project's results again: one source's (every variant), or --all of them")
    .requiredOption("--team <slug>", TEAM_HELP, arg.slug)
    .requiredOption("--project <slug>", PROJECT_HELP, arg.slug)
    .option("--source <url>", "the source whose results go, e.g. https://cdn.example.com/a.jpg or local/a.jpg")
    .option("--all", "every result of the project")
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      if (options.source === undefined && !options.all)
        throw new CliError("Say what to purge: --source <url> for one source, or --all for the whole project");
      if (options.source !== undefined && options.all) throw new CliError("Give either --source or --all, not both");
      const ctx = cli.context(command, options);
      // Opened once the database is ours: on the embedded default the files store is the server's too.
      const purged = await withWriteDatabase(ctx, async (deps) => {
        const { scope } = await resolveProject(deps.db, options.team, options.project);
        const settings = resultStoreOf(ctx.env());
        const store = settings
          ? await createResultStore(settings, { masterSecret: loadSecrets(ctx.env()).keyEncryption })
          : null;
        try {
          return await purgeResults({ ...deps, store, logger: cliLogger(ctx) }, scope, {
            source: options.source,
            actorId: null,
          });
        } finally {
          await store?.close();
        }
      });
      ctx.out.result(purged, () =>
        [
          `Purged ${purged.source ?? `every result of ${options.team}/${options.project}`}${purged.widened ? " (widened to the whole project: too many single purges)" : ""}; ${purged.deletedObjects} stored result(s) deleted.`,
          `# CDN: purge the cache tag ${purged.cdnTag}`,
        ].join("\n"),
      );
    });

  program
    .command("reset-limits")
    .description("forget a key's rate-limit windows on every instance (shared Redis)")
    .requiredOption("--team <slug>", TEAM_HELP, arg.slug)
    .requiredOption("--project <slug>", PROJECT_HELP, arg.slug)
    .requiredOption("--key <pk_…>", "the key's public key (optstuff keys list)", arg.publicKey)
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      const ctx = cli.context(command, options);
      const redis = redisOf(ctx.env());
      if (!redis)
        throw new CliError(
          "Nothing was reset: without a shared Redis (REDIS_URL or UPSTASH_REDIS_REST_URL) the limits live in the server's process, and a restart of the server clears them.",
          1,
        );
      // A mistyped key would clear nothing and say it did.
      await withWriteDatabase(ctx, async (deps) => {
        const { scope } = await resolveProject(deps.db, options.team, options.project);
        const key = await findProjectKey(deps, scope, options.key);
        // The entry is written first and committed only once Redis has reset: no entry, no change.
        await deps.db.transaction(async (tx) => {
          await deps.audit.record(tx, {
            ...scope,
            action: "api_key.limits_reset",
            target: keyTarget(key.id, key.name, key.publicKey),
          });
          await createCoordination(redis).limiter.reset(options.key);
        });
      });
      ctx.out.result({ publicKey: options.key, reset: true }, () => `Rate-limit windows of ${options.key} cleared.`);
    });

  program
    .command("reseal")
    .description(
      "seal every stored secret under the current master, after OPTSTUFF_KEY_ENCRYPTION_SECRET changed (the old one as …_PREVIOUS)",
    )
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      const ctx = cli.context(command, options);
      const outcome = await withWriteDatabase(ctx, async (deps) => {
        // The secrets and their entry commit together.
        const result = await deps.db.transaction(async (tx) => {
          const resealed = await resealSecrets({ db: tx, secretBox: deps.secretBox });
          if (resealed.resealed > 0)
            await deps.audit.record(tx, {
              teamId: null,
              action: "instance.secrets_resealed",
              target: { id: "secrets", label: "stored secrets" },
              changes: { resealed: { from: null, to: resealed.resealed } },
            });
          return resealed;
        });
        await deps.invalidate.apiKeys(result.publicKeys);
        for (const projectId of result.projectIds) await deps.invalidate.project(projectId);
        return result;
      });
      ctx.out.result(
        { resealed: outcome.resealed, current: outcome.current },
        () =>
          `Re-sealed ${outcome.resealed} secret(s) (API keys and private buckets) under the current master; ${outcome.current} were already current.`,
      );
    });
}
