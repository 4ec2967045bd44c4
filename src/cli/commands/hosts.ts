import type { Command } from "@commander-js/extra-typings";
import { parseHostList, projectSchema } from "@/lib/schemas/project";
import { updateProject, type ProjectRow } from "@/server/tenancy/projects";
import * as arg from "../arguments";
import { JSON_HELP, PROJECT_HELP, TEAM_HELP, type Cli } from "../command-context";
import { withReadDatabase, withWriteDatabase } from "../context";
import { CliError } from "../errors";
import { resolveProject } from "../scope";

/** The project's two host lists: `sources` and `referers` read them, `… set` replaces one. */
const lists = {
  sources: {
    field: "allowedSourceHosts",
    what: "source hosts",
    description: "where the project's images may come from (host, *.host, local, s3:<bucket>)",
    none: "(none: every remote source is refused)",
  },
  referers: {
    field: "allowedRefererHosts",
    what: "referer hosts",
    description: "which sites may embed the project's images (empty: any)",
    none: "(none: any site may embed the images)",
  },
} as const satisfies Record<string, { field: keyof ProjectRow; what: string; description: string; none: string }>;

export function registerHostLists(program: Command, cli: Cli): void {
  for (const [name, list] of Object.entries(lists)) {
    const group = program.command(name).description(`the project's allowed ${list.what}: ${list.description}`);
    group
      .command("show", { isDefault: true })
      .description(`show the allowed ${list.what} (the default: optstuff ${name} --team T --project P)`)
      .requiredOption("--team <slug>", TEAM_HELP, arg.slug)
      .requiredOption("--project <slug>", PROJECT_HELP, arg.slug)
      .option("--json", JSON_HELP)
      .action(async (options, command) => {
        const ctx = cli.context(command, options);
        const project = await withReadDatabase(
          ctx,
          async (db) => (await resolveProject(db, options.team, options.project)).project,
        );
        const hosts = project[list.field];
        ctx.out.result(hosts, () => (hosts.length > 0 ? hosts.join("\n") : list.none));
      });
    group
      .command("set")
      .description(`replace the allowed ${list.what} (as the dashboard's settings do)`)
      .argument("[hosts...]", "the whole new list, space- or comma-separated")
      .requiredOption("--team <slug>", TEAM_HELP, arg.slug)
      .requiredOption("--project <slug>", PROJECT_HELP, arg.slug)
      .option("--none", `empty the list ${list.none}`)
      .option("--json", JSON_HELP)
      .action(async (given, options, command) => {
        const hosts = given.flatMap(parseHostList);
        if (hosts.length === 0 && !options.none)
          throw new CliError(`Give the new list, or --none to empty it (optstuff ${name} shows the current one)`);
        if (hosts.length > 0 && options.none) throw new CliError("Give either hosts or --none, not both");
        const checked = projectSchema.shape[list.field].safeParse(hosts);
        if (!checked.success) throw new CliError(checked.error.issues[0]?.message ?? "Invalid host list");
        const ctx = cli.context(command, options);
        const updated = await withWriteDatabase(ctx, async (deps) => {
          const { scope } = await resolveProject(deps.db, options.team, options.project);
          return updateProject(deps, scope, { [list.field]: hosts });
        });
        const saved = updated[list.field];
        ctx.out.result(saved, () =>
          [
            `Allowed ${list.what} of ${options.team}/${updated.slug}:`,
            saved.length > 0 ? saved.join("\n") : list.none,
          ].join("\n"),
        );
      });
  }
}
