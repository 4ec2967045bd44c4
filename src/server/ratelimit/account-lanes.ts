import { AppError } from "@/server/errors";

/**
 * Heavy dashboard reads (logs, statistics, exports) in this process: one at a time per account, with a
 * few waiting behind it (more are refused at once), and a few at a time for everyone. However many
 * tabs, scripts or accounts ask, those reads then take a bounded number of database connections (on
 * PostgreSQL each holds one for its duration; the pool is shared with the image route) and of turns of
 * the embedded database's one session.
 */
export interface AccountLanes {
  run<T>(account: string, work: () => Promise<T>): Promise<T>;
}

export interface LaneOptions {
  /** An account's reads waiting behind its running one. Default 4. */
  waiting?: number;
  /** Reads running at once in the process, all accounts together. Default 3 (a pool has 10). */
  atOnce?: number;
}

/** A first-come gate of `size` places. */
function gate(size: number) {
  let used = 0;
  const queue: Array<() => void> = [];
  return {
    async enter(): Promise<void> {
      if (used < size) {
        used++;
        return;
      }
      await new Promise<void>((resolve) => queue.push(resolve));
    },
    leave(): void {
      const next = queue.shift();
      if (next) next();
      else used--;
    },
  };
}

export function createAccountLanes(options: LaneOptions = {}): AccountLanes {
  const waiting = options.waiting ?? 4;
  const everyone = gate(options.atOnce ?? 3);
  const lanes = new Map<string, { gate: ReturnType<typeof gate>; queued: number }>();
  return {
    async run(account, work) {
      let lane = lanes.get(account);
      if (!lane) lanes.set(account, (lane = { gate: gate(1), queued: 0 }));
      if (lane.queued > waiting)
        throw new AppError("DASHBOARD_RATE_LIMITED", {
          message: `Too many reads of logs and statistics at once: an account's run one at a time, with ${waiting} waiting. Try again in a moment.`,
          headers: { "Retry-After": "1" },
        });
      lane.queued++;
      try {
        await lane.gate.enter();
        try {
          await everyone.enter();
          try {
            return await work();
          } finally {
            everyone.leave();
          }
        } finally {
          lane.gate.leave();
        }
      } finally {
        if (--lane.queued === 0) lanes.delete(account);
      }
    },
  };
}
