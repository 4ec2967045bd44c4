import { Command, CommanderError, type CommandUnknownOpts } from "@commander-js/extra-typings";
import { ZodError } from "zod";
import { EnvironmentError } from "@/env";
import { MissingSecretError } from "@/server/config/secrets";
import { isAppError } from "@/server/errors";
import { commandPath, createCli, type Streams } from "./command-context";
import { registerAccounts } from "./commands/accounts";
import { registerBootstrap } from "./commands/bootstrap";
import { registerDoctor } from "./commands/doctor";
import { registerHostLists } from "./commands/hosts";
import { registerKeys } from "./commands/keys";
import { registerAuditStream } from "./commands/audit-stream";
import { registerMaintenance } from "./commands/maintenance";
import { registerMigrate } from "./commands/migrate";
import { registerSign } from "./commands/sign";
import { registerTeams } from "./commands/teams";
import { CliError, rootMessage } from "./errors";
import { version } from "../../package.json";

const ABOUT =
  "Administer OptStuff without the dashboard: on the embedded database (OPTSTUFF_DATA_DIR, default .data/; through the server's database process while the server runs), or on DATABASE_URL (DATABASE_URL_UNPOOLED when set). Commands that show change nothing; a command that changes a project or a key names it with --team and --project.";

const EXAMPLES = `
Examples:
  optstuff teams list
  optstuff keys create --team acme --project blog --name production --expires-in-days 365
  optstuff sources --team acme --project blog
  optstuff sources set --team acme --project blog cdn.example.com '*.images.example.com'
  optstuff sign local/photo.jpg --operations w_400,f_auto
  optstuff doctor`;

/** Runs one command line; answers the exit code: 0 done, 1 could not be done, 2 wrong input. */
export async function runCli(argv: readonly string[], streams: Streams): Promise<number> {
  const program = optstuffProgram(streams);
  if (argv.length === 0) {
    streams.stdout.write(program.helpInformation());
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    const [message, code] = refusal(error);
    streams.stderr.write(`optstuff: ${message}\n`);
    return code;
  }
}

/** Every command, registered; the audit test walks it to find each one that changes something. */
export function optstuffProgram(streams: Streams): Command {
  const program = new Command("optstuff").description(ABOUT).version(version).addHelpText("after", EXAMPLES);
  const cli = createCli(streams);
  registerTeams(program, cli);
  registerAccounts(program, cli);
  registerKeys(program, cli);
  registerAuditStream(program, cli);
  registerHostLists(program, cli);
  registerMaintenance(program, cli);
  registerSign(program, cli);
  registerBootstrap(program, cli);
  registerDoctor(program, cli);
  registerMigrate(program, cli);
  configure(program, streams);
  return program;
}

/** What went wrong, in one line, and whether it was the input (2) or the moment (1). */
function refusal(error: unknown): [string, 1 | 2] {
  if (error instanceof CliError) return [error.message, error.exitCode];
  if (error instanceof EnvironmentError) return [error.message.replace(/\n\s*/g, " "), 2];
  if (error instanceof MissingSecretError) return [error.message, 2];
  if (error instanceof ZodError) return [error.issues.map((issue) => issue.message).join("; "), 2];
  if (isAppError(error)) return [error.publicMessage, error.status < 500 ? 2 : 1];
  return [rootMessage(error), 1];
}

/**
 * Every command writes to the given streams, throws instead of exiting, and words a refusal in one
 * line that says where to read more: commander's "error: unknown option '--x'" becomes
 * "optstuff: unknown option '--x' (optstuff keys create --help)".
 */
function configure(command: CommandUnknownOpts, streams: Streams): void {
  command.exitOverride().configureOutput({
    writeOut: (text) => void streams.stdout.write(text),
    writeErr: (text) => void streams.stderr.write(text),
    // One line: commander puts its "(Did you mean teams?)" on a second.
    outputError: (text, write) => {
      const said = text
        .trim()
        .replace(/^error: /, "")
        .replace(/\s*\n\s*/g, " ");
      write(`optstuff: ${said} (${commandPath(command)} --help)\n`);
    },
  });
  if (command.parent && command.commands.length > 0) configureGroup(command);
  for (const sub of command.commands) configure(sub, streams);
}

/**
 * Every group (teams, projects, keys, sources, referers) named alone prints its help, as `--help` does,
 * and exits 0; commander printed it as a refusal (exit 2), or ran the default (sources and referers
 * show), which then asked for --team. A word in the subcommand's place that names none is refused as an
 * unknown command, also where a default would have taken it for its own argument.
 */
function configureGroup(group: CommandUnknownOpts): void {
  const names = group.commands.flatMap((sub) => [sub.name(), ...sub.aliases()]);
  const refuseUnknown = (word: string) =>
    group.error(`unknown command '${word}'; ${commandPath(group)} has ${names.join(", ")}`, {
      code: "commander.unknownCommand",
    });
  // Runs when no subcommand was named and the group has no default: nothing after the group (its
  // help), a mistyped subcommand, or an option no subcommand was named for. Commander turns its
  // `help <subcommand>` off for a command with an action: it stays on.
  group
    .helpCommand(true)
    .allowExcessArguments()
    .allowUnknownOption()
    .action(() => {
      const [word] = group.args;
      if (word === undefined) group.help();
      if (word.startsWith("-")) group.error(`unknown option '${word}'`, { code: "commander.unknownOption" });
      refuseUnknown(word);
    });
  // Runs before any subcommand, a default one included; group.args are the words after the group.
  group.hook("preSubcommand", () => {
    const [word] = group.args;
    if (word === undefined) group.help();
    if (!word.startsWith("-") && word !== "help" && !names.includes(word)) refuseUnknown(word);
  });
}
