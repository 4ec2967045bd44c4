import { AppError } from "@/server/errors";

/**
 * One heavy dashboard read at a time per account in this process, and a few waiting behind it; more
 * are refused at once. However many tabs or scripts an account runs, its reads of logs and statistics
 * then take one database session's turn at a time, not all of them.
 */
export interface AccountLanes {
  run<T>(account: string, work: () => Promise<T>): Promise<T>;
}

export function createAccountLanes(options: { waiting: number } = { waiting: 4 }): AccountLanes {
  const lanes = new Map<string, { running: boolean; waiting: Array<() => void> }>();
  return {
    async run(account, work) {
      let lane = lanes.get(account);
      if (!lane) lanes.set(account, (lane = { running: false, waiting: [] }));
      if (lane.running) {
        if (lane.waiting.length >= options.waiting)
          throw new AppError("DASHBOARD_RATE_LIMITED", {
            message: `Too many reads of logs and statistics at once: an account's run one at a time, with ${options.waiting} waiting. Try again in a moment.`,
            headers: { "Retry-After": "1" },
          });
        await new Promise<void>((start) => lane.waiting.push(start));
      }
      lane.running = true;
      try {
        return await work();
      } finally {
        const next = lane.waiting.shift();
        if (next) next();
        else {
          lane.running = false;
          lanes.delete(account);
        }
      }
    },
  };
}
