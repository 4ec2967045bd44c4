import type { Command } from "@commander-js/extra-typings";
import { JSON_HELP, type Cli } from "../command-context";
import { CliError } from "../errors";
import { table } from "../output";

export function registerDoctor(program: Command, cli: Cli): void {
  program
    .command("doctor")
    .description(
      "check the configuration, database, Redis, object store, scratch space and transform worker, and whether the server answers at the address commands print; say in words what is wrong (changes nothing; exits 1 when a check fails, and a stopped server is only a warning)",
    )
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      const ctx = cli.context(command, options);
      // Loaded here: it brings sharp and the transform pool, which no other command needs.
      const { runDoctor } = await import("../doctor");
      const findings = await runDoctor(ctx);
      ctx.out.result(findings, () =>
        table(
          findings.map((f) => ({ check: f.check, status: f.status, detail: f.detail })),
          "",
        ),
      );
      const failed = findings.filter((f) => f.status === "fail").map((f) => f.check);
      if (failed.length > 0) throw new CliError(`${failed.length} check(s) failed: ${failed.join(", ")}`, 1);
    });
}
