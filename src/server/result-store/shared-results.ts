import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Counters } from "@/server/coordination/counters";
import { withBudget, type FailureKind } from "@/server/coordination/failure-policy";
import { redisKeys } from "@/server/coordination/keys";
import type { KeyValue } from "@/server/coordination/types";
import type { TransformResult } from "@/server/image";
import { describeError, type SampledLog } from "@/server/log";
import type { ResultStore } from "./types";

/** What a request about to transform learns: make it here, or another instance just stored it. */
export type Claim = { kind: "make"; release(): void } | { kind: "stored"; result: TransformResult };

export interface SharedResults {
  store: ResultStore;
  /** The stored result within the read budget; null on a miss, a damaged object or a failing store. */
  read(key: string): Promise<TransformResult | null>;
  /**
   * What a request that missed L1 does: the stored result, else a claim. After a read that failed
   * (slow or down) the claim reads no second time; the lease still coalesces the instances, whose
   * waiters keep polling until the holder stores the result or lets go.
   */
  lookup(key: string): Promise<Claim>;
  /**
   * With a shared Redis, at most one instance makes a result at a time: the others wait for the store
   * while the lease is held, and make it themselves if its holder died or overran. Without Redis:
   * always "make" (in-process sharing already coalesces one instance's requests).
   */
  claim(key: string): Promise<Claim>;
  /**
   * Stores a made result after the response, then releases the claim. `team`: whose result it is (the
   * store evicts the largest team's first). Resolves true once the store kept it, false when it did not
   * (too large for it, or the write failed); never rejects, and nobody needs to wait for it.
   */
  writeBack(key: string, result: TransformResult, claim: Claim, team?: string): Promise<boolean>;
  /** Resolves when every write-back begun so far has finished (shutdown, tests). */
  drain(): Promise<void>;
}

export interface SharedResultsDeps {
  store: ResultStore;
  /** Null: one instance, no lease. */
  redis: KeyValue | null;
  counters: Counters;
  logSampled: SampledLog;
  /** How long a lease lives when its holder never releases it (crash): waiters give up after it. */
  leaseSeconds?: number;
  pollMs?: number;
}

const made: Claim = { kind: "make", release: () => undefined };

export function createSharedResults(deps: SharedResultsDeps): SharedResults {
  const leaseSeconds = deps.leaseSeconds ?? 30;
  const pollMs = deps.pollMs ?? 100;
  const pending = new Set<Promise<boolean>>();

  function failed(kind: FailureKind, counter: string, error: unknown): void {
    deps.counters.increment(counter);
    deps.logSampled(kind, "warn", `result store ${kind} failed; the request went on`, describeError(error));
  }

  /** "failed" when the store did not answer within budget (counted and logged), null on a miss. */
  async function attempt(key: string): Promise<TransformResult | null | "failed"> {
    try {
      return await withBudget("resultStoreRead", deps.store.get(key));
    } catch (error) {
      failed("resultStoreRead", "result_store_failure_read", error);
      return "failed";
    }
  }

  async function read(key: string): Promise<TransformResult | null> {
    const outcome = await attempt(key);
    return outcome === "failed" ? null : outcome;
  }

  /** SET NX within budget; null when Redis did not answer (make it here, counted). */
  async function acquire(kv: KeyValue, lease: string, token: string): Promise<boolean | null> {
    try {
      return await withBudget("transformLease", kv.set(lease, token, { ttlSeconds: leaseSeconds, onlyIfAbsent: true }));
    } catch (error) {
      deps.counters.increment("redis_failure_transformLease");
      deps.logSampled(
        "transformLease",
        "warn",
        "transform lease unavailable; transforming without one",
        describeError(error),
      );
      return null;
    }
  }

  async function claim(key: string, { reread = true }: { reread?: boolean } = {}): Promise<Claim> {
    const kv = deps.redis;
    if (!kv) return made;
    const lease = redisKeys.transformLease(key);
    const token = randomUUID();
    const owned: Claim = { kind: "make", release: () => void kv.deleteIfEquals(lease, token).catch(() => undefined) };
    // Taken: unless the result landed between this request's store read and now (its maker released
    // the lease just before), which one more read tells.
    const takeOver = async (): Promise<Claim> => {
      if (!reread) return owned;
      const landed = await attempt(key);
      if (landed === null || landed === "failed") return owned;
      owned.release();
      return { kind: "stored", result: landed };
    };
    const first = await acquire(kv, lease, token);
    if (first !== false) return first ? takeOver() : made;

    deps.counters.increment("result_lease_wait");
    const deadline = performance.now() + leaseSeconds * 1000;
    while (performance.now() < deadline) {
      await sleep(pollMs);
      // A failed poll (the store slow under load) is no reason to give up: the holder lets go in time.
      const result = await attempt(key);
      if (result && result !== "failed") return { kind: "stored", result };
      // The holder released without storing (its transform failed) or its lease expired: take over.
      const again = await acquire(kv, lease, token);
      if (again !== false) return again ? takeOver() : made;
    }
    return made;
  }

  return {
    store: deps.store,
    read,
    claim,
    async lookup(key) {
      const stored = await attempt(key);
      if (stored === "failed") return claim(key, { reread: false });
      return stored ? { kind: "stored", result: stored } : claim(key);
    },
    writeBack(key, result, claimed, team) {
      const write = withBudget("resultStoreWrite", deps.store.put(key, result, team))
        .then((kept) => kept === "stored")
        .catch((error: unknown) => {
          failed("resultStoreWrite", "result_store_failure_write", error);
          return false;
        })
        .finally(() => {
          if (claimed.kind === "make") claimed.release();
          pending.delete(write);
        });
      pending.add(write);
      return write;
    },
    async drain() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}
