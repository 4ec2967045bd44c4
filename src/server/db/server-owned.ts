import { describeError, type Logger } from "@/server/log";
import type { DatabaseTarget } from "./client";

/** The server owns its embedded database for as long as it runs, and says so if it loses it. */
export function ownedByServer(
  target: DatabaseTarget,
  databaseProcess: string | undefined,
  logger: Logger,
): DatabaseTarget {
  if (target.kind !== "pglite") return target;
  // Without its database the server can answer nothing right; a supervisor (or the operator) starts it again.
  const lost = (reason: string) => {
    logger.log("error", `the embedded database process stopped serving: ${reason}; stopping`);
    process.exit(1);
  };
  return {
    ...target,
    serve: databaseProcess && target.dataDir ? { entry: databaseProcess, onLost: lost } : undefined,
    owner: {
      role: "the OptStuff server",
      // Another process may be writing the database now: serving on would overwrite its writes.
      onCompromised: (error) => {
        logger.log("error", "lost the embedded database's lock; stopping", describeError(error));
        process.exit(1);
      },
      onTakeover: (owner) =>
        logger.log("warn", "took over the embedded database from a process that ended without releasing it", {
          pid: owner?.pid,
          role: owner?.role,
        }),
    },
  };
}
