import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import type { Writable } from "node:stream";
import { createContext, type CliContext } from "./context";
import { createOutput } from "./output";

export interface Streams {
  stdout: Pick<Writable, "write">;
  stderr: Pick<Writable, "write">;
}

/** How each command's action gets its context: its streams, --json, and its name for a refusal. */
export interface Cli {
  context(command: CommandUnknownOpts, options: { json?: boolean }): CliContext;
}

export function createCli(streams: Streams): Cli {
  return {
    context: (command, options) =>
      createContext(createOutput(streams.stdout, streams.stderr, options.json === true), `"${commandPath(command)}"`),
  };
}

/** "optstuff keys create", as a refusal names the process holding the database. */
export function commandPath(command: CommandUnknownOpts): string {
  const names: string[] = [];
  for (let c: CommandUnknownOpts | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

export const JSON_HELP = "print the result as JSON (for scripts)";
export const TEAM_HELP = "the team's slug (optstuff teams list)";
export const PROJECT_HELP = "the project's slug (optstuff projects list --team T)";
