import { availableParallelism } from "node:os";
import { AppError } from "@/server/errors";

export interface SchedulerOptions {
  /** Transforms running at once. Default: 2 × os.availableParallelism() (see OPTSTUFF_TRANSFORM_CONCURRENCY). */
  concurrency?: number;
  /** Transforms waiting for a slot; beyond that requests are refused at once with 503. Default 4 × concurrency. */
  maxQueue?: number;
  /** Share slots and queue between tenants (default). Off: one first-come queue for everyone, as before. */
  fairShare?: boolean;
}

/**
 * `normal` for a tenant's first running job; for its others, `extra` while no other tenant has work and
 * `background` while one has (and for work nobody waits for). Where jobs run in their own processes,
 * extra and background ones run at a lower CPU priority, so a tenant's burst uses idle cores but gives
 * way to every other tenant's first job (measured in bench:hostile's cross-tenant case). Placed by
 * input (isolation/placed-transform.ts), an extra job may run in the server's process, where it cannot
 * be niced: there is nobody to give way to, and its cost is bounded by the placement check.
 */
export type JobPriority = "normal" | "extra" | "background";

export interface TransformScheduler {
  /**
   * Runs `job` when a slot is free, in turn with the other tenants' jobs (by what their jobs cost). A `background`
   * job (work nobody waits for: an AVIF made after its interim answer) runs at background priority and
   * never takes the slot kept for tenants with nothing running.
   */
  run<T>(tenant: string, job: (priority: JobPriority) => Promise<T>, options?: JobOptions): Promise<T>;
  /** Whether a background job of `tenant` would start or wait now, rather than be refused as overloaded. */
  roomForBackground(tenant: string): boolean;
  /**
   * Resolves as soon as roomForBackground(tenant) holds (checked each time a job ends, the only moment
   * room appears), or after `maxWaitMs` whatever the room.
   */
  whenRoomForBackground(tenant: string, maxWaitMs: number): Promise<void>;
  stats(): { running: number; queued: number };
}

export interface JobOptions {
  /** Work nobody waits for (an AVIF made after its interim answer): background priority, never the kept slot. */
  background?: boolean;
  /**
   * What the job will cost, in plain transforms (image/job-cost.ts): a perceptual quality search is
   * several encodes and scores. Tenants with waiting jobs take their turns in proportion to what their
   * jobs cost, not one job each, so a tenant of searches waits as long as its searches cost. Default 1.
   */
  cost?: number;
  /**
   * Called when the job waits in the queue rather than starting at once: what its caller holds in memory
   * for it (a source's bytes, which are in a file as well) can go until its turn. Must not throw.
   */
  onQueued?: () => void;
}

/** Bounds of the Retry-After hint, in seconds. */
const MIN_RETRY_AFTER = 1;
const MAX_RETRY_AFTER = 30;

interface Waiting {
  background: boolean;
  cost: number;
  start: () => void;
}

interface Tenant {
  running: number;
  waiting: Waiting[];
  /** Start-time fair queueing: the virtual time its next waiting job starts at. */
  tag: number;
  /** The virtual time its work so far ends at. */
  finish: number;
  /** Order of arrival among tenants with the same tag. */
  arrival: number;
}

/**
 * A bounded queue in front of the transforms, shared fairly between tenants (the accounts that own the
 * teams: config-cache/fair-share.ts):
 * - Queueing more work than the CPUs can clear only adds latency and memory (each waiting job holds
 *   its source bytes), so past `maxQueue` the server says "busy" immediately and the client retries.
 *   One tenant may fill at most half of the queue: its flood is refused while others still queue.
 * - When a slot frees, the tenants with waiting jobs take turns (start-time fair queueing), whatever
 *   their queue lengths, each in proportion to what its jobs cost: a tenant of quality searches waits
 *   behind its own searches, not in front of everyone, and not one search per plain transform of another.
 * - One slot (of three or more) is kept for tenants with nothing running: a burst can use every slot but one,
 *   so another tenant's request starts at once instead of waiting for a heavy job to finish.
 */
export function createTransformScheduler(options: SchedulerOptions = {}): TransformScheduler {
  const concurrency = Math.max(1, options.concurrency ?? 2 * availableParallelism());
  const maxQueue = Math.max(0, options.maxQueue ?? concurrency * 4);
  const fair = options.fairShare ?? true;
  const tenantQueue = fair ? Math.max(1, Math.ceil(maxQueue / 2)) : maxQueue;
  const reserved = fair && concurrency > 2 ? 1 : 0;
  const tenants = new Map<string, Tenant>();
  /** Tenants with waiting jobs. */
  const backlogged = new Set<string>();
  /** The tag of the job started last: where a tenant that starts waiting begins. */
  let virtualTime = 0;
  let arrivals = 0;
  let running = 0;
  let queued = 0;
  let averageMs = 0;
  /** Callers of whenRoomForBackground still waiting, each woken once. */
  const roomWaiters = new Set<{ tenant: string; wake: () => void }>();

  function canStart(tenant: Tenant, background = false): boolean {
    if (running >= concurrency) return false;
    return (tenant.running === 0 && !background) || running < concurrency - reserved;
  }

  function start(
    name: string,
    tenant: Tenant,
    job: (priority: JobPriority) => Promise<unknown>,
    settle: (outcome: Promise<unknown>) => void,
    background: boolean,
    cost: number,
  ): void {
    const priority: JobPriority = background
      ? "background"
      : !fair || tenant.running === 0
        ? "normal"
        : // Tenants are kept while they have work: this one and any other.
          tenants.size > 1
          ? "background"
          : "extra";
    // Its work is charged from where it started: now, or its turn in the queue.
    const from = Math.max(virtualTime, tenant.finish);
    virtualTime = from;
    tenant.finish = from + cost;
    running++;
    tenant.running++;
    const startedAt = performance.now();
    const outcome = Promise.resolve().then(() => job(priority));
    settle(outcome);
    void outcome.then(done, done);
    function done(): void {
      running--;
      tenant.running--;
      // A moving average of job time, only to size the Retry-After hint.
      const elapsed = performance.now() - startedAt;
      averageMs = averageMs === 0 ? elapsed : averageMs * 0.8 + elapsed * 0.2;
      forgetIfIdle(name, tenant);
      dispatch();
      for (const waiter of roomWaiters) if (hasBackgroundRoom(waiter.tenant)) waiter.wake();
    }
  }

  /** Starts waiting jobs while slots allow: each time the tenant whose turn comes first (least tag). */
  function dispatch(): void {
    for (;;) {
      let next: [string, Tenant] | null = null;
      for (const name of backlogged) {
        const tenant = tenants.get(name)!;
        if (!canStart(tenant, tenant.waiting[0]!.background)) continue;
        if (!next || tenant.tag < next[1].tag || (tenant.tag === next[1].tag && tenant.arrival < next[1].arrival))
          next = [name, tenant];
      }
      if (!next) return;
      const [name, tenant] = next;
      queued--;
      tenant.waiting.shift()!.start();
      if (tenant.waiting.length === 0) backlogged.delete(name);
      else tenant.tag = tenant.finish;
    }
  }

  /** Room to wait in the queue. Background work may fill half of what a request may, so that it never leaves a tenant's own requests, or anyone else's, refused. */
  function roomFor(tenant: Tenant, background: boolean): boolean {
    const share = background ? 0.5 : 1;
    return queued < maxQueue * share && tenant.waiting.length < tenantQueue * share;
  }

  function hasBackgroundRoom(given: string): boolean {
    const tenant = tenants.get(fair ? given : "") ?? idle();
    return (canStart(tenant, true) && tenant.waiting.length === 0) || roomFor(tenant, true);
  }

  function idle(): Tenant {
    return { running: 0, waiting: [], tag: 0, finish: 0, arrival: 0 };
  }

  function forgetIfIdle(name: string, tenant: Tenant): void {
    if (tenant.running === 0 && tenant.waiting.length === 0) tenants.delete(name);
  }

  function overloaded(detail: string): AppError {
    const seconds = Math.ceil(((queued + running) / concurrency) * (averageMs / 1000));
    const retryAfter = Math.min(MAX_RETRY_AFTER, Math.max(MIN_RETRY_AFTER, seconds));
    return new AppError("OVERLOADED", { detail, headers: { "Retry-After": String(retryAfter) } });
  }

  return {
    run<T>(given: string, job: (priority: JobPriority) => Promise<T>, options: JobOptions = {}): Promise<T> {
      const name = fair ? given : "";
      const background = options.background === true;
      const cost = Math.max(1, options.cost ?? 1);
      const tenant = tenants.get(name) ?? idle();
      tenants.set(name, tenant);
      const settle = (resolve: (value: T) => void, reject: (error: unknown) => void) => (outcome: Promise<unknown>) =>
        void (outcome as Promise<T>).then(resolve, reject);
      if (canStart(tenant, background) && tenant.waiting.length === 0) {
        return new Promise<T>((resolve, reject) => start(name, tenant, job, settle(resolve, reject), background, cost));
      }
      if (!roomFor(tenant, background)) {
        forgetIfIdle(name, tenant);
        const scope =
          queued >= maxQueue ? "transform queue full" : "this account's share of the transform queue is full";
        return Promise.reject(
          overloaded(`${scope} (${running} running, ${queued} queued, ${tenant.waiting.length} of this account)`),
        );
      }
      return new Promise<T>((resolve, reject) => {
        if (tenant.waiting.length === 0) {
          // Its turn comes after the work it has done, or now if it has been idle.
          tenant.tag = Math.max(virtualTime, tenant.finish);
          tenant.arrival = arrivals++;
          backlogged.add(name);
        }
        tenant.waiting.push({
          background,
          cost,
          start: () => start(name, tenant, job, settle(resolve, reject), background, cost),
        });
        queued++;
        options.onQueued?.();
      });
    },
    roomForBackground: hasBackgroundRoom,
    whenRoomForBackground(tenant: string, maxWaitMs: number): Promise<void> {
      if (hasBackgroundRoom(tenant)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const waiter = {
          tenant,
          wake: () => {
            clearTimeout(timer);
            roomWaiters.delete(waiter);
            resolve();
          },
        };
        const timer = setTimeout(waiter.wake, maxWaitMs);
        timer.unref?.();
        roomWaiters.add(waiter);
      });
    },
    stats: () => ({ running, queued }),
  };
}
