import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { createTransformScheduler } from "@/server/image";

/** A job that finishes when the test says so. */
function deferred<T = string>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("createTransformScheduler", () => {
  it("runs at most `concurrency` jobs at once and starts queued jobs in order", async () => {
    const scheduler = createTransformScheduler({ concurrency: 2, maxQueue: 10 });
    const jobs = Array.from({ length: 5 }, () => deferred());
    const started: number[] = [];
    let active = 0;
    let peak = 0;
    const results = jobs.map((job, i) =>
      scheduler.run(`k${i}`, async () => {
        started.push(i);
        peak = Math.max(peak, ++active);
        try {
          return await job.promise;
        } finally {
          active--;
        }
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    expect(scheduler.stats()).toEqual({ running: 2, queued: 3 });

    jobs[1]!.resolve("b");
    await tick();
    expect(started).toEqual([0, 1, 2]);
    for (const [i, job] of jobs.entries()) job.resolve(String(i));
    expect(await Promise.all(results)).toEqual(["0", "b", "2", "3", "4"]);
    expect(peak).toBe(2);
    expect(scheduler.stats()).toEqual({ running: 0, queued: 0 });
  });

  it("says which jobs wait in the queue (their callers let go of what they hold until then), not those it starts", async () => {
    const scheduler = createTransformScheduler({ concurrency: 2, maxQueue: 10 });
    const gate = deferred();
    const queued: number[] = [];
    const results = Array.from({ length: 4 }, (_, i) =>
      scheduler.run(`k${i}`, () => gate.promise, { onQueued: () => queued.push(i) }),
    );
    expect(queued).toEqual([2, 3]);
    gate.resolve("done");
    expect(await Promise.all(results)).toEqual(["done", "done", "done", "done"]);
    expect(queued).toEqual([2, 3]);
  });

  it("refuses beyond the queue at once with OVERLOADED and a Retry-After", async () => {
    const scheduler = createTransformScheduler({ concurrency: 1, maxQueue: 1 });
    const gate = deferred();
    const first = scheduler.run("a", () => gate.promise);
    const second = scheduler.run("b", () => gate.promise);
    const third = scheduler.run("c", () => gate.promise);
    const error = await third.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("OVERLOADED");
    expect((error as AppError).status).toBe(503);
    const retryAfter = Number((error as AppError).headers["Retry-After"]);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(30);
    gate.resolve("done");
    expect(await Promise.all([first, second])).toEqual(["done", "done"]);
  });

  it("with maxQueue 0 refuses as soon as every slot is busy", async () => {
    const scheduler = createTransformScheduler({ concurrency: 1, maxQueue: 0 });
    const gate = deferred();
    const first = scheduler.run("a", () => gate.promise);
    await expect(scheduler.run("b", async () => "x")).rejects.toMatchObject({ code: "OVERLOADED" });
    gate.resolve("ok");
    await first;
    await expect(scheduler.run("b", async () => "x")).resolves.toBe("x");
  });

  it("propagates a failure and frees the slot for the next job", async () => {
    const scheduler = createTransformScheduler({ concurrency: 1, maxQueue: 1 });
    const gate = deferred();
    const a = scheduler.run("k", () => gate.promise);
    const b = scheduler.run("k", async () => "next");
    const failure = new Error("decode failed");
    gate.reject(failure);
    await expect(a).rejects.toBe(failure);
    await expect(b).resolves.toBe("next");
    expect(scheduler.stats()).toEqual({ running: 0, queued: 0 });
  });

  it("frees the slot when a job throws synchronously", async () => {
    const scheduler = createTransformScheduler({ concurrency: 1, maxQueue: 0 });
    await expect(
      scheduler.run("k", () => {
        throw new Error("sync");
      }),
    ).rejects.toThrow("sync");
    await expect(scheduler.run("other", async () => 1)).resolves.toBe(1);
  });

  it("keeps a slot for another tenant while one tenant bursts", async () => {
    const scheduler = createTransformScheduler({ concurrency: 4, maxQueue: 20 });
    const gate = deferred();
    const priorities: string[] = [];
    const noisy = Array.from({ length: 6 }, () =>
      scheduler.run("noisy", (priority) => {
        priorities.push(`noisy:${priority}`);
        return gate.promise;
      }),
    );
    await tick();
    expect(scheduler.stats()).toEqual({ running: 3, queued: 3 });
    expect(priorities).toEqual(["noisy:normal", "noisy:extra", "noisy:extra"]);
    // The quiet tenant starts at once, at normal priority, though the noisy one has jobs waiting.
    const quiet = scheduler.run("quiet", async (priority) => priority);
    await expect(quiet).resolves.toBe("normal");
    gate.resolve("x");
    await Promise.all(noisy);
  });

  it("runs a lone tenant's extra jobs as extra, and as background from the moment another tenant has work", async () => {
    const scheduler = createTransformScheduler({ concurrency: 6, maxQueue: 20 });
    const gate = deferred();
    const priorities: string[] = [];
    const job = (name: string) => (priority: string) => (priorities.push(`${name}:${priority}`), gate.promise);
    const jobs = [scheduler.run("alone", job("alone")), scheduler.run("alone", job("alone"))];
    await tick();
    jobs.push(scheduler.run("other", job("other")));
    await tick();
    jobs.push(scheduler.run("alone", job("alone")));
    await tick();
    expect(priorities).toEqual(["alone:normal", "alone:extra", "other:normal", "alone:background"]);
    gate.resolve("x");
    await Promise.all(jobs);
    // Everyone gone: the next burst is alone again.
    const next = [scheduler.run("other", job("other")), scheduler.run("other", job("other"))];
    await Promise.all(next);
    expect(priorities.slice(4)).toEqual(["other:normal", "other:extra"]);
  });

  it("runs a background job at background priority, never in the slot kept for idle tenants", async () => {
    const scheduler = createTransformScheduler({ concurrency: 3, maxQueue: 10 });
    const gate = deferred();
    const busy = [scheduler.run("a", () => gate.promise), scheduler.run("b", () => gate.promise)];
    await tick();
    // Two of three slots busy: the third is kept for a tenant with nothing running, so a background job
    // of such a tenant waits, and a foreground one of a third tenant takes it.
    const priorities: string[] = [];
    const later = scheduler.run("c", async (priority) => priorities.push(`c:${priority}`), { background: true });
    await tick();
    expect(scheduler.stats()).toEqual({ running: 2, queued: 1 });
    await expect(scheduler.run("d", async (priority) => priority)).resolves.toBe("normal");
    gate.resolve("x");
    await Promise.all([...busy, later]);
    expect(priorities).toEqual(["c:background"]);
  });

  it("wakes a caller waiting for background room when a job ends, and one that waits too long at its limit", async () => {
    const scheduler = createTransformScheduler({ concurrency: 1, maxQueue: 2 });
    await expect(scheduler.whenRoomForBackground("a", 10_000)).resolves.toBeUndefined();
    const gate = deferred();
    // One running and one queued: the queue's background half (1) is full.
    const held = [scheduler.run("x", () => gate.promise), scheduler.run("y", () => gate.promise)];
    await tick();
    expect(scheduler.roomForBackground("a")).toBe(false);
    let woken = false;
    const waiting = scheduler.whenRoomForBackground("a", 10_000).then(() => (woken = true));
    const impatient = performance.now();
    await scheduler.whenRoomForBackground("b", 20);
    expect(performance.now() - impatient).toBeGreaterThanOrEqual(15);
    expect(woken).toBe(false);
    gate.resolve("done");
    await Promise.all(held);
    await waiting;
    expect(scheduler.roomForBackground("a")).toBe(true);
  });

  it("keeps a queued background job out of the reserved slot when it is dequeued, and refuses it first", async () => {
    const scheduler = createTransformScheduler({ concurrency: 3, maxQueue: 4 });
    const first = deferred();
    const second = deferred();
    const third = deferred();
    const busy = [
      scheduler.run("a", () => first.promise),
      scheduler.run("b", () => second.promise),
      scheduler.run("x", () => third.promise),
    ];
    await tick();
    const started: string[] = [];
    expect(scheduler.roomForBackground("c")).toBe(true);
    const later = scheduler.run("c", async () => started.push("c"), { background: true });
    await tick();
    expect(scheduler.stats()).toEqual({ running: 3, queued: 1 });
    // One job ends: the free slot is the one kept for idle tenants, which the background job may not take.
    third.resolve("x");
    await busy[2];
    await tick();
    expect(scheduler.stats()).toEqual({ running: 2, queued: 1 });
    expect(started).toEqual([]);
    // Another ends: now a slot other than the kept one is free.
    first.resolve("x");
    await busy[0];
    await later;
    expect(started).toEqual(["c"]);
    // Background work may fill half the queue: past it, it is refused while requests still queue.
    const gate = deferred();
    const hold = [scheduler.run("d", () => gate.promise), scheduler.run("e", () => gate.promise)];
    await tick();
    const queuedLater = ["f1", "f2"].map((tenant) => scheduler.run(tenant, () => gate.promise, { background: true }));
    await tick();
    // The later queue asks first: no room for a background job now, room for a request still.
    expect(scheduler.roomForBackground("f3")).toBe(false);
    await expect(scheduler.run("f3", () => gate.promise, { background: true })).rejects.toMatchObject({
      code: "OVERLOADED",
    });
    const request = scheduler.run("g", () => gate.promise);
    await tick();
    expect(scheduler.stats().queued).toBe(3);
    second.resolve("x");
    gate.resolve("x");
    await Promise.all([...busy, ...hold, ...queuedLater, request]);
  });

  it("takes tenants in turn when slots free up, whatever their queue lengths", async () => {
    const scheduler = createTransformScheduler({ concurrency: 1, maxQueue: 20 });
    const gates = Array.from({ length: 9 }, () => deferred());
    const order: string[] = [];
    let next = 0;
    const job = (name: string) => () => {
      order.push(name);
      return gates[next++]!.promise;
    };
    const all = [
      ...Array.from({ length: 5 }, (_, i) => scheduler.run("noisy", job(`n${i}`))),
      scheduler.run("quiet", job("q0")),
      scheduler.run("quiet", job("q1")),
    ];
    for (let i = 0; i < 7; i++) {
      await tick();
      gates[i]!.resolve("done");
    }
    await Promise.all(all);
    // n0 was running, charged to the noisy tenant: the quiet one goes first, then they alternate until
    // the quiet one has nothing left.
    expect(order).toEqual(["n0", "q0", "n1", "q1", "n2", "n3", "n4"]);
  });

  it("gives turns in proportion to what jobs cost: a tenant of searches waits behind its own searches", async () => {
    const scheduler = createTransformScheduler({ concurrency: 1, maxQueue: 40 });
    const order: string[] = [];
    const gates: Array<ReturnType<typeof deferred<string>>> = [];
    const job = (name: string) => () => {
      order.push(name);
      const gate = deferred();
      gates.push(gate);
      return gate.promise;
    };
    const all = [
      ...Array.from({ length: 4 }, (_, i) => scheduler.run("searches", job(`s${i}`), { cost: 5 })),
      ...Array.from({ length: 12 }, (_, i) => scheduler.run("plain", job(`p${i}`))),
    ];
    for (let i = 0; i < 16; i++) {
      await tick();
      gates[i]!.resolve("done");
    }
    await Promise.all(all);
    // s0 was running; each search costs five plain transforms' turns.
    expect(order).toEqual([
      "s0",
      ...["p0", "p1", "p2", "p3", "p4", "s1"],
      ...["p5", "p6", "p7", "p8", "p9", "s2"],
      ...["p10", "p11", "s3"],
    ]);
  });

  it("lets one tenant fill at most half of the queue: its flood is refused while others still queue", async () => {
    const scheduler = createTransformScheduler({ concurrency: 1, maxQueue: 4 });
    const gate = deferred();
    const running = scheduler.run("noisy", () => gate.promise);
    const queuedNoisy = [scheduler.run("noisy", () => gate.promise), scheduler.run("noisy", () => gate.promise)];
    await expect(scheduler.run("noisy", async () => "x")).rejects.toMatchObject({ code: "OVERLOADED" });
    const quiet = scheduler.run("quiet", async () => "served");
    gate.resolve("x");
    await expect(quiet).resolves.toBe("served");
    await Promise.all([running, ...queuedNoisy]);
  });

  it("without fair share, is one first-come queue: a burst takes every slot", async () => {
    const scheduler = createTransformScheduler({ concurrency: 4, maxQueue: 20, fairShare: false });
    const gate = deferred();
    const priorities: string[] = [];
    const noisy = Array.from({ length: 6 }, () => scheduler.run("noisy", (p) => (priorities.push(p), gate.promise)));
    await tick();
    expect(scheduler.stats()).toEqual({ running: 4, queued: 2 });
    expect(new Set(priorities)).toEqual(new Set(["normal"]));
    gate.resolve("x");
    await Promise.all(noisy);
  });

  it("defaults to two slots per core", async () => {
    const scheduler = createTransformScheduler();
    const { availableParallelism } = await import("node:os");
    const slots = 2 * availableParallelism();
    const gate = deferred();
    const all = Array.from({ length: slots + 1 }, (_, i) => scheduler.run(`tenant${i}`, () => gate.promise));
    expect(scheduler.stats()).toEqual({ running: slots, queued: 1 });
    gate.resolve("x");
    await Promise.all(all);
  });
});
