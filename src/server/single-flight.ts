/**
 * One job per key at a time: whoever asks for a key while its job runs gets that job's promise instead
 * of starting another (results, sources, config reads, project images). The job is forgotten when it
 * settles, so a failure is never cached.
 */
export interface SingleFlight<T> {
  /** The job running for `key`, if any: callers that report sharing ask before `run`. */
  running(key: string): Promise<T> | undefined;
  /** The job running for `key`, else the one `start` begins. */
  run(key: string, start: () => Promise<T>): Promise<T>;
  /** Later callers start a new job (an invalidation); those already waiting keep theirs. */
  forget(key: string): void;
}

export function createSingleFlight<T>(): SingleFlight<T> {
  const jobs = new Map<string, Promise<T>>();
  return {
    running: (key) => jobs.get(key),
    run(key, start) {
      const running = jobs.get(key);
      if (running) return running;
      const job: Promise<T> = start().finally(() => {
        // A job forgotten and replaced meanwhile must not remove its successor.
        if (jobs.get(key) === job) jobs.delete(key);
      });
      jobs.set(key, job);
      return job;
    },
    forget: (key) => void jobs.delete(key),
  };
}
