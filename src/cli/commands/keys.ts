import type { Command } from "@commander-js/extra-typings";
import { policyRefusals } from "@/lib/key-policy-summary";
import { listApiKeys, revokeApiKey, rotateApiKey } from "@/server/tenancy/api-keys";
import { createApiKey } from "@/server/tenancy/create-api-key";
import * as arg from "../arguments";
import { JSON_HELP, PROJECT_HELP, TEAM_HELP, type Cli } from "../command-context";
import { withReadDatabase, withWriteDatabase } from "../context";
import { printCredentials } from "../credentials";
import { day, table } from "../output";
import { findProjectKey, resolveProject } from "../scope";
import { registerKeyCaps } from "./key-caps";

const DAY_MS = 86_400_000;

export function registerKeys(program: Command, cli: Cli): void {
  const keys = program.command("keys").description("a project's API keys");

  keys
    .command("list")
    .description("list a project's keys with their status, limits, expiry and policy (never a secret)")
    .requiredOption("--team <slug>", TEAM_HELP, arg.slug)
    .requiredOption("--project <slug>", PROJECT_HELP, arg.slug)
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      const ctx = cli.context(command, options);
      const rows = await withReadDatabase(ctx, async (db) => {
        const { scope } = await resolveProject(db, options.team, options.project);
        return listApiKeys({ db, now: () => new Date() }, scope);
      });
      ctx.out.result(rows, () =>
        table(
          rows.map((k) => ({
            key: k.publicKey,
            name: k.name,
            status: k.status,
            "per minute": String(k.limits.perMinute),
            "per day": String(k.limits.perDay),
            expires: day(k.expiresAt),
            "last used": day(k.lastUsedAt),
            "policy refuses": k.policy ? policyRefusals(k.policy).join("; ") : "nothing",
            caps: k.capReached ? `reached until ${day(k.capReached.until)}` : k.spendCap ? "set" : "none",
          })),
          `No keys in ${options.team}/${options.project}: optstuff keys create makes one.`,
        ),
      );
    });

  keys
    .command("create")
    .description("create a key; prints its secret once, with the .env block and a signed demo URL")
    .requiredOption("--team <slug>", TEAM_HELP, arg.slug)
    .requiredOption("--project <slug>", PROJECT_HELP, arg.slug)
    .requiredOption("--name <name>", "what the key is for, e.g. production", arg.name)
    .option("--expires-in-days <days>", "the key stops working after this many days (default: never)", arg.days)
    .option("--per-minute <n>", "transforms a minute (default: the instance's, 600)", arg.perMinute)
    .option("--per-day <n>", "transforms a day (default: the instance's, 100,000)", arg.perDay)
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      const ctx = cli.context(command, options);
      await withWriteDatabase(ctx, async (deps) => {
        const { project, scope } = await resolveProject(deps.db, options.team, options.project);
        const expiresAt = options.expiresInDays
          ? new Date(deps.now().getTime() + options.expiresInDays * DAY_MS)
          : null;
        const key = await createApiKey(deps, scope, {
          name: options.name,
          expiresAt,
          createdBy: null,
          rateLimitPerMinute: options.perMinute ?? null,
          rateLimitPerDay: options.perDay ?? null,
        });
        await printCredentials(ctx, { projectSlug: project.slug, key, hosts: project.allowedSourceHosts, expiresAt });
      });
    });

  keys
    .command("revoke")
    .description("revoke a key at once: its URLs answer 401 from the next request")
    .requiredOption("--team <slug>", TEAM_HELP, arg.slug)
    .requiredOption("--project <slug>", PROJECT_HELP, arg.slug)
    .requiredOption("--key <pk_…>", "the key's public key (optstuff keys list)", arg.publicKey)
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      const ctx = cli.context(command, options);
      await withWriteDatabase(ctx, async (deps) => {
        const { scope } = await resolveProject(deps.db, options.team, options.project);
        const key = await findProjectKey(deps, scope, options.key);
        await revokeApiKey(deps, scope, key.id);
        ctx.out.result({ publicKey: key.publicKey, revoked: true, wasAlready: key.status === "revoked" }, () =>
          key.status === "revoked"
            ? `${key.publicKey} was already revoked.`
            : `Revoked ${key.publicKey} (${key.name}).`,
        );
      });
    });

  keys
    .command("rotate")
    .description("issue a new pair for a key; the old one keeps working for the grace period only")
    .requiredOption("--team <slug>", TEAM_HELP, arg.slug)
    .requiredOption("--project <slug>", PROJECT_HELP, arg.slug)
    .requiredOption("--key <pk_…>", "the key's public key (optstuff keys list)", arg.publicKey)
    .option("--grace-hours <hours>", "how long the old pair keeps working, 0 to 720", arg.graceHours, 24)
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      const ctx = cli.context(command, options);
      await withWriteDatabase(ctx, async (deps) => {
        const { project, scope } = await resolveProject(deps.db, options.team, options.project);
        const old = await findProjectKey(deps, scope, options.key);
        const key = await rotateApiKey(deps, scope, old.id, {
          graceSeconds: options.graceHours * 3600,
          createdBy: null,
        });
        await printCredentials(ctx, {
          projectSlug: project.slug,
          key,
          hosts: project.allowedSourceHosts,
          expiresAt: old.expiresAt,
          replaced: { publicKey: old.publicKey, worksUntil: key.oldKeyExpiresAt },
        });
      });
    });

  registerKeyCaps(keys, cli);
}
