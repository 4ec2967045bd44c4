/**
 * Work done after the answer (final answers after interim ones, interim.ts), started a few at a time per
 * process, tenants in turn. A burst of cold requests (a page's srcset at once) would otherwise hand every
 * job to the transform scheduler together, where background work may fill only half of a tenant's
 * queue share (a queued transform holds its source's bytes), and the rest would be refused and lost
 * until the URL was asked again. An entry here holds a closure, not bytes (the source is read when the
 * job starts), so the queue can be long; past `perTenant` waiting jobs a tenant's new ones are dropped
 * (the next request of that URL asks again), so that one tenant cannot hold the process's memory.
 */
export interface LaterQueue {
  /**
   * Runs `job` in its tenant's turn; null when it was dropped, or when a job for the same `key` is
   * already waiting or running (each interim answer, and each revalidation of one, asks again).
   */
  run<T>(tenant: string, job: () => Promise<T>, key?: string): Promise<T | null>;
  stats(): { running: number; waiting: number };
}

export interface LaterQueueOptions {
  concurrency: number;
  perTenant: number;
  /**
   * Resolves when the transform scheduler has room for the tenant's background work (the scheduler's
   * whenRoomForBackground, with its longest wait): a job waits for it before it starts, so that a burst
   * of the tenant's own requests filling the scheduler's queue delays its later work instead of
   * refusing it.
   */
  roomFor?: (tenant: string) => Promise<void>;
}

export function createLaterQueue({ concurrency, perTenant, roomFor = async () => {} }: LaterQueueOptions): LaterQueue {
  const waiting = new Map<string, Array<(tenant: string) => void>>();
  /** Keys of the jobs waiting or running. */
  const pending = new Set<string>();
  let running = 0;
  let queued = 0;

  let last: string | null = null;
  const next = () => {
    // Round robin: the first tenant in line runs one job, then goes to the back if it has more; the
    // tenant whose job just ran waits for the others.
    for (const [tenant, jobs] of waiting) {
      if (tenant === last && waiting.size > 1) continue;
      const start = jobs.shift()!;
      waiting.delete(tenant);
      if (jobs.length > 0) waiting.set(tenant, jobs);
      queued--;
      start(tenant);
      return;
    }
  };

  return {
    run<T>(tenant: string, job: () => Promise<T>, key?: string): Promise<T | null> {
      const line = waiting.get(tenant) ?? [];
      if (running >= concurrency && line.length >= perTenant) return Promise.resolve(null);
      if (key !== undefined && pending.has(key)) return Promise.resolve(null);
      if (key !== undefined) pending.add(key);
      return new Promise<T | null>((resolve, reject) => {
        const start = (_: string) => {
          last = tenant;
          running++;
          roomFor(tenant)
            .then(job)
            .then(resolve, reject)
            .finally(() => {
              if (key !== undefined) pending.delete(key);
              running--;
              next();
            });
        };
        if (running < concurrency) return start(tenant);
        line.push(start);
        waiting.set(tenant, line);
        queued++;
      });
    },
    stats: () => ({ running, waiting: queued }),
  };
}
