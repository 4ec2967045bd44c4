import type { Command } from "@commander-js/extra-typings";
import { JSON_HELP, type Cli } from "../command-context";
import { migrateDatabase, withWriteDatabase } from "../context";

/**
 * The deploy step where servers do not migrate at start (Vercel: `vercel.json`'s build command). It
 * uses DATABASE_URL_UNPOOLED when set: a migration's advisory lock holds only on a direct session.
 */
export function registerMigrate(program: Command, cli: Cli): void {
  program
    .command("migrate")
    .description("apply the database's pending migrations (over DATABASE_URL_UNPOOLED when it is set)")
    .option(
      "--only-production-deployment",
      "on Vercel, change nothing unless this is the production deployment (VERCEL_ENV=production): a preview must not migrate production's database",
    )
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      const ctx = cli.context(command, options);
      const vercelEnv = ctx.env().VERCEL_ENV;
      if (options.onlyProductionDeployment && vercelEnv !== undefined && vercelEnv !== "production") {
        const skipped = `a ${vercelEnv} deployment: nothing migrated (give previews a database of their own, a Neon branch, and migrate it there)`;
        ctx.out.result({ applied: 0, skipped }, () => `Skipped: ${skipped}.`);
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
