import type { Command } from "@commander-js/extra-typings";
import { listAccounts, resetSecondFactor } from "@/server/auth/second-factor-reset";
import * as arg from "../arguments";
import { JSON_HELP, type Cli } from "../command-context";
import { withReadDatabase, withWriteDatabase } from "../context";
import { day, table } from "../output";

/** The instance's accounts: who has a second factor, and the way back in for one who lost it. */
export function registerAccounts(program: Command, cli: Cli): void {
  const accounts = program.command("accounts").description("the instance's accounts");
  accounts
    .command("list")
    .description("list every account, with whether it has a second factor")
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      const ctx = cli.context(command, options);
      const rows = await withReadDatabase(ctx, (db) => listAccounts(db));
      ctx.out.result(rows, () =>
        table(
          rows.map((a) => ({
            email: a.email,
            name: a.name,
            "second factor": a.secondFactor ? "on" : "off",
            "signed up": day(a.createdAt),
          })),
          "No accounts yet: the first one to sign up in the dashboard owns the instance.",
        ),
      );
    });
  accounts
    .command("reset-second-factor")
    .description(
      "remove an account's second factor (its app and recovery codes were lost); its password signs in alone",
    )
    .requiredOption("--email <address>", "the account's e-mail address", arg.email)
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      const ctx = cli.context(command, options);
      const { changed } = await withWriteDatabase(ctx, (deps) => resetSecondFactor(deps, options.email));
      ctx.out.result({ email: options.email, changed }, () =>
        changed
          ? `Removed the second factor of ${options.email}: its password signs in alone until it sets up a new one.`
          : `${options.email} has no second factor: nothing changed.`,
      );
    });
}
