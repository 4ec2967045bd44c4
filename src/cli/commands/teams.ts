import type { Command } from "@commander-js/extra-typings";
import { listProjects } from "@/server/tenancy/projects";
import { listAllTeams } from "@/server/tenancy/teams";
import * as arg from "../arguments";
import { JSON_HELP, TEAM_HELP, type Cli } from "../command-context";
import { withReadDatabase } from "../context";
import { day, table } from "../output";
import { resolveTeam } from "../scope";

export function registerTeams(program: Command, cli: Cli): void {
  program
    .command("teams")
    .description("the instance's teams")
    .command("list")
    .description("list every team, with its members and projects")
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      const ctx = cli.context(command, options);
      const teams = await withReadDatabase(ctx, (db) => listAllTeams({ db }));
      ctx.out.result(teams, () =>
        table(
          teams.map((t) => ({ slug: t.slug, name: t.name, members: String(t.members), projects: String(t.projects) })),
          "No teams yet: optstuff bootstrap --team T --project P makes one, or sign up in the dashboard.",
        ),
      );
    });

  program
    .command("projects")
    .description("a team's projects")
    .command("list")
    .description("list a team's projects, with their allowed source hosts")
    .requiredOption("--team <slug>", TEAM_HELP, arg.slug)
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      const ctx = cli.context(command, options);
      const projects = await withReadDatabase(ctx, async (db) =>
        listProjects({ db }, (await resolveTeam(db, options.team)).id),
      );
      ctx.out.result(projects, () =>
        table(
          projects.map((p) => ({
            slug: p.slug,
            name: p.name,
            sources: p.allowedSourceHosts.join(", ") || "(none)",
            "last used": day(p.lastActivityAt, "never"),
          })),
          `No projects in team "${options.team}".`,
        ),
      );
    });
}
