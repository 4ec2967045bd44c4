import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { Command } from "@commander-js/extra-typings";
import { projectSchema } from "@/lib/schemas/project";
import { projects } from "@/server/db/schema";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { findInstanceOwner } from "@/server/tenancy/registration";
import * as arg from "../arguments";
import { JSON_HELP, type Cli } from "../command-context";
import type { CliContext } from "../context";
import { withWriteDatabase } from "../context";
import { assertWritable, printCredentials } from "../credentials";
import { CliError } from "../errors";

export function registerBootstrap(program: Command, cli: Cli): void {
  program
    .command("bootstrap")
    .description(
      "make a team and a project if they do not exist, and a new key for it (the team belongs to the instance's owner, or to the first account that signs up)",
    )
    .requiredOption("--team <slug>", "the team's slug (made if new)", arg.slug)
    .requiredOption("--project <slug>", "the project's slug (made if new)", arg.slug)
    .option(
      "--sources <hosts>",
      "replace the project's allowed source hosts (comma-separated; default for a new project on the embedded database: local)",
      arg.hostList,
    )
    .option("--key-name <name>", "the new key's name", arg.name, "default")
    .option(
      "--credentials-file <file>",
      "write the new key's variables to this file (mode 0600) instead of printing them",
    )
    .option("--if-empty", "do nothing when the database has a project already (the embedded default's first start)")
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      const ctx = cli.context(command, options);
      if (options.sources) {
        const checked = projectSchema.shape.allowedSourceHosts.safeParse(options.sources);
        if (!checked.success) throw new CliError(checked.error.issues[0]?.message ?? "Invalid host list");
      }
      if (options.credentialsFile) assertWritable(options.credentialsFile);
      await withWriteDatabase(ctx, async (deps) => {
        if (options.ifEmpty) {
          const [any] = await deps.db.select({ id: projects.id }).from(projects).limit(1);
          if (any) return refreshBaseUrl(ctx, options.credentialsFile);
        }
        const e = ctx.env();
        const result = await bootstrap(deps, {
          teamSlug: options.team,
          projectSlug: options.project,
          keyName: options.keyName,
          sourceHosts: options.sources,
          // The embedded default serves demo/ as local/: a new project there may read it, so the demo
          // URL works. An existing project keeps its hosts unless --sources says otherwise.
          newProjectSourceHosts: e.DATABASE_URL === undefined ? ["local"] : undefined,
          allowLoopback: e.OPTSTUFF_ALLOW_LOOPBACK_SOURCES,
          ownerId: (await findInstanceOwner(deps))?.id ?? null,
        });
        if (!result.created.project) await deps.invalidate.project(result.project.id);
        await printCredentials(
          ctx,
          {
            projectSlug: result.project.slug,
            key: result.key,
            hosts: result.project.allowedSourceHosts,
            expiresAt: null,
          },
          options.credentialsFile,
        );
      });
    });
}

/**
 * On later starts the credentials file stays, but the server may now listen elsewhere (PORT, or
 * OPTSTUFF_PUBLIC_BASE_URL): its OPTSTUFF_BASE_URL follows, so `optstuff sign` keeps signing for it.
 */
function refreshBaseUrl(ctx: CliContext, file: string | undefined): void {
  if (!file || !existsSync(file)) return;
  const text = readFileSync(file, "utf8");
  const next = text.replace(/^OPTSTUFF_BASE_URL=.*$/m, `OPTSTUFF_BASE_URL=${ctx.baseUrl()}`);
  if (next === text) return;
  writeFileSync(file, next, { mode: 0o600 });
  ctx.out.note(`${file}: OPTSTUFF_BASE_URL is now ${ctx.baseUrl()}`);
}
