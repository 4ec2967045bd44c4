import type { Command } from "@commander-js/extra-typings";
import type { Env } from "@/env";
import { JSON_HELP, type Cli } from "../command-context";
import { migrateDatabase, withWriteDatabase } from "../context";

/**
 * Whose database a build on Vercel migrates (docs/migrations.md). Production's, always. A preview's
 * build cannot tell its database from production's (both arrive as DATABASE_URL_UNPOOLED, and Neon's
 * integration without a branch per preview can give previews production's own), so it migrates only
 * when told that every preview has a database of its own: a preview migrating production's would put
 * a branch's unreviewed migrations under the live release. Off Vercel (no VERCEL_ENV) a build migrates.
 */
export function buildMigration(
  e: Pick<Env, "VERCEL_ENV" | "OPTSTUFF_MIGRATE_PREVIEWS">,
): { migrate: true } | { migrate: false; skipped: string } {
  if (e.VERCEL_ENV === undefined || e.VERCEL_ENV === "production") return { migrate: true };
  if (e.VERCEL_ENV !== "preview") return { migrate: false, skipped: `a ${e.VERCEL_ENV} deployment: nothing migrated` };
  if (e.OPTSTUFF_MIGRATE_PREVIEWS === "on") return { migrate: true };
  return {
    migrate: false,
    skipped:
      "a preview deployment: nothing migrated, since its database could be production's (give each preview a database of its own, a Neon branch, and set OPTSTUFF_MIGRATE_PREVIEWS=on for Preview)",
  };
}

/**
 * The deploy step where servers do not migrate at start (Vercel: `vercel.json`'s build command). It
 * uses DATABASE_URL_UNPOOLED when set: a migration's lock holds only on a direct session.
 */
export function registerMigrate(program: Command, cli: Cli): void {
  program
    .command("migrate")
    .description("apply the database's pending migrations (over DATABASE_URL_UNPOOLED when it is set)")
    .option(
      "--vercel-build",
      "as Vercel's build step: migrate production's database, a preview's only with OPTSTUFF_MIGRATE_PREVIEWS=on (a database of its own), nothing for other deployments",
    )
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      const ctx = cli.context(command, options);
      const plan = options.vercelBuild ? buildMigration(ctx.env()) : { migrate: true as const };
      if (!plan.migrate) {
        ctx.out.result({ applied: 0, skipped: plan.skipped }, () => `Skipped: ${plan.skipped}.`);
        return;
      }
      const { applied } = await migrateDatabase(ctx);
      if (applied > 0)
        await withWriteDatabase(ctx, (deps) =>
          deps.audit.record(deps.db, {
            teamId: null,
            action: "instance.migrated",
            target: { id: "database", label: "database schema" },
            changes: { migrations: { from: null, to: applied } },
          }),
        );
      ctx.out.result({ applied }, () =>
        applied === 0 ? "The database is up to date." : `Applied ${applied} migration(s).`,
      );
    });
}
