import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createCounters } from "@/server/coordination/counters";
import { redisKeys } from "@/server/coordination/keys";
import { createMemoryKeyValue } from "@/server/coordination/memory-key-value";
import type { KeyValue } from "@/server/coordination/types";
import { createLogger, createSampledLogger } from "@/server/log";
import { createFileStore } from "@/server/result-store/file-store";
import { createSharedResults } from "@/server/result-store/shared-results";
import type { ResultStore } from "@/server/result-store/types";
import { bytes, result } from "../../contract/result-store";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function store(): ResultStore {
  const dir = mkdtempSync(path.join(os.tmpdir(), "optstuff-shared-"));
  dirs.push(dir);
  return createFileStore({ root: dir, maxBytes: 1 << 20 });
}

/** One instance's view: its own counters, the shared Redis and store. */
function instance(shared: KeyValue | null, results: ResultStore) {
  const counters = createCounters();
  return {
    counters,
    shared: createSharedResults({
      store: results,
      redis: shared,
      counters,
      logSampled: createSampledLogger(createLogger("error")),
      leaseSeconds: 5,
      pollMs: 10,
    }),
  };
}

describe("shared results: the transform lease", () => {
  it("without a shared Redis, every claim makes the result (in-process sharing coalesces one instance)", async () => {
    const { shared } = instance(null, store());
    expect((await shared.claim("p/s/v")).kind).toBe("make");
    expect((await shared.claim("p/s/v")).kind).toBe("make");
  });

  it("lets one instance make a result while another waits for it in the store", async () => {
    const kv = createMemoryKeyValue();
    const results = store();
    const [a, b] = [instance(kv, results), instance(kv, results)];
    const claimA = await a.shared.claim("p/s/v");
    expect(claimA.kind).toBe("make");
    const waiting = b.shared.claim("p/s/v");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const made = result(bytes(1_000));
    const kept = a.shared.writeBack("p/s/v", made, claimA);
    const claimB = await waiting;
    expect(await kept).toBe(true);
    expect(claimB).toEqual({ kind: "stored", result: made });
    await a.shared.drain();
    expect(await kv.get(redisKeys.transformLease("p/s/v"))).toBeNull();
    expect(b.counters.get("result_lease_wait")).toBe(1);
  });

  it("hands the work over when the holder gives up without storing (its transform failed)", async () => {
    const kv = createMemoryKeyValue();
    const results = store();
    const [a, b] = [instance(kv, results), instance(kv, results)];
    const claimA = await a.shared.claim("p/s/v");
    const waiting = b.shared.claim("p/s/v");
    await new Promise((resolve) => setTimeout(resolve, 30));
    if (claimA.kind === "make") claimA.release();
    expect((await waiting).kind).toBe("make");
    // B now holds the lease: a third instance waits for B.
    expect(await kv.get(redisKeys.transformLease("p/s/v"))).not.toBeNull();
  });

  it("makes the result itself when Redis fails, and counts it", async () => {
    const failing = {
      ...createMemoryKeyValue(),
      set: () => Promise.reject(new Error("connection refused")),
    } as KeyValue;
    const { shared, counters } = instance(failing, store());
    expect((await shared.claim("p/s/v")).kind).toBe("make");
    expect(counters.get("redis_failure_transformLease")).toBe(1);
  });

  it("reads a failing store as a miss and a failing write as a counted loss, never an error", async () => {
    const broken: ResultStore = {
      ...store(),
      get: () => Promise.reject(new Error("EIO")),
      put: () => Promise.reject(new Error("ENOSPC")),
    };
    const { shared, counters } = instance(null, broken);
    expect(await shared.read("p/s/v")).toBeNull();
    const kept = shared.writeBack("p/s/v", result(bytes(10)), { kind: "make", release: () => undefined });
    await shared.drain();
    expect(await kept).toBe(false);
    expect(counters.get("result_store_failure_read")).toBe(1);
    expect(counters.get("result_store_failure_write")).toBe(1);
  });

  it("with Redis up but the store failing: one read per request, the lease still coalesces, waiters outlast failed polls", async () => {
    const kv = createMemoryKeyValue();
    let reads = 0;
    const broken: ResultStore = {
      ...store(),
      get: () => (reads++, Promise.reject(new Error("EIO"))),
      put: () => Promise.reject(new Error("EIO")),
    };
    const [a, b] = [instance(kv, broken), instance(kv, broken)];
    const claimA = await a.shared.lookup("p/s/v");
    expect(claimA.kind).toBe("make");
    expect(reads).toBe(1);
    expect(await kv.get(redisKeys.transformLease("p/s/v"))).not.toBeNull();
    // B waits on A's lease through failing polls, and makes the result once A lets go.
    const waiting = b.shared.lookup("p/s/v");
    await new Promise((resolve) => setTimeout(resolve, 50));
    void a.shared.writeBack("p/s/v", result(bytes(10)), claimA);
    await a.shared.drain();
    expect((await waiting).kind).toBe("make");
    expect(b.counters.get("result_lease_wait")).toBe(1);
    expect(a.counters.get("result_store_failure_read")).toBe(1);
    expect(a.counters.get("result_store_failure_write")).toBe(1);
  });

  it("looks up a stored result without taking the lease, and claims on a miss", async () => {
    const kv = createMemoryKeyValue();
    const results = store();
    const { shared } = instance(kv, results);
    const miss = await shared.lookup("p/s/v");
    expect(miss.kind).toBe("make");
    expect(await kv.get(redisKeys.transformLease("p/s/v"))).not.toBeNull();
    const made = result(bytes(500));
    void shared.writeBack("p/s/v", made, miss);
    await shared.drain();
    expect(await shared.lookup("p/s/v")).toEqual({ kind: "stored", result: made });
    expect(await kv.get(redisKeys.transformLease("p/s/v"))).toBeNull();
  });
});
