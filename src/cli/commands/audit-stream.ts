import { Option, type Command } from "@commander-js/extra-typings";
import { WAITING_COUNTED } from "@/lib/schemas/audit-stream";
import { auditArchiveOf } from "@/server/audit-stream/archive";
import {
  auditStreamStatus,
  removeAuditStream,
  resetAuditStream,
  type AuditStreamStatus,
} from "@/server/audit-stream/manage";
import { resultStoreOf } from "@/server/result-store/settings";
import * as arg from "../arguments";
import { JSON_HELP, TEAM_HELP, type Cli } from "../command-context";
import { withReadDatabase, withWriteDatabase } from "../context";
import { table } from "../output";
import { resolveTeam } from "../scope";

/**
 * `audit-stream`: where a team's audit log is streamed and how far it has gone; `--reset-to` moves its
 * cursor, `--stop` stops it (the operator's way to end a stream a team left failing), both audited as
 * the command line. Without them, it reads and changes nothing.
 */
export function registerAuditStream(program: Command, cli: Cli): void {
  program
    .command("audit-stream")
    .description(
      "show a team's audit stream (where to, how far, what waits); --reset-to moves its cursor, --stop ends it",
    )
    .requiredOption("--team <slug>", TEAM_HELP, arg.slug)
    .option(
      "--reset-to <oldest|now|day>",
      "send again every kept entry (oldest), from a UTC day (2026-01-31), or skip what waits (now)",
      arg.streamReset,
    )
    .addOption(new Option("--stop", "stop the stream (what was sent stays where it went)").conflicts("resetTo"))
    .option("--json", JSON_HELP)
    .action(async (options, command) => {
      const ctx = cli.context(command, options);
      const archive = auditArchiveOf(resultStoreOf(ctx.env()));
      const reset = options.resetTo;
      const status =
        reset || options.stop
          ? await withWriteDatabase(ctx, async (deps) => {
              const team = await resolveTeam(deps.db, options.team);
              if (reset) await resetAuditStream({ ...deps, archive }, team.id, reset);
              else await removeAuditStream({ ...deps, archive }, team.id);
              return auditStreamStatus({ db: deps.db, archive }, team.id);
            })
          : await withReadDatabase(ctx, async (db) =>
              auditStreamStatus({ db, archive }, (await resolveTeam(db, options.team)).id),
            );
      ctx.out.result(status, () => describe(options.team, status));
    });
}

function describe(team: string, { stream }: AuditStreamStatus): string {
  if (!stream) return `Team "${team}" streams no audit log (team settings → Audit streaming starts one).`;
  const rows = [
    {
      field: "sent to",
      value:
        stream.destination === "bucket"
          ? "the bucket"
          : (stream.webhookShown ?? "a webhook that was deleted (choose another in team settings)"),
    },
    {
      field: "sent through",
      value: stream.cursor === 0 ? "nothing yet" : `entry ${stream.cursor}${at(stream.cursorAt)}`,
    },
    {
      field: "waiting",
      value:
        stream.waiting > WAITING_COUNTED
          ? `${WAITING_COUNTED.toLocaleString("en")} or more`
          : stream.waiting.toLocaleString("en"),
    },
    { field: "last sent", value: stream.lastSentAt?.toISOString() ?? "never" },
    ...(stream.lastError
      ? [
          {
            field: "failing",
            value:
              stream.failures > 0
                ? `${stream.lastError} (next try ${stream.nextAttemptAt.toISOString()})`
                : stream.lastError,
          },
        ]
      : []),
  ];
  return table(rows, "");
}

const at = (date: Date | null) => (date ? `, written ${date.toISOString()}` : "");
