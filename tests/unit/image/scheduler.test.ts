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

  it("coalesces identical keys: one run, one slot, same result", async () => {
    const scheduler = createTransformScheduler({ concurrency: 1, maxQueue: 0 });
    const gate = deferred();
    let runs = 0;
    const job = () => {
      runs++;
      return gate.promise;
    };
    const a = scheduler.run("same", job);
    // The queue is 0: a second distinct key would be refused, a shared one is not.
    const b = scheduler.run("same", job);
    const c = scheduler.run("same", job);
    expect(scheduler.stats()).toEqual({ running: 1, queued: 0 });
    gate.resolve("img");
    expect(await Promise.all([a, b, c])).toEqual(["img", "img", "img"]);
    expect(runs).toBe(1);
  });

  it("coalesces a queued job too, without a second queue slot", async () => {
    const scheduler = createTransformScheduler({ concurrency: 1, maxQueue: 1 });
    const gate = deferred();
    const blocker = scheduler.run("blocker", () => gate.promise);
    let runs = 0;
    const queued = scheduler.run("q", async () => ++runs);
    const sharer = scheduler.run("q", async () => ++runs);
    expect(scheduler.stats()).toEqual({ running: 1, queued: 1 });
    gate.resolve("x");
    await blocker;
    expect(await Promise.all([queued, sharer])).toEqual([1, 1]);
  });

  it("propagates a failure to every waiter and frees the slot", async () => {
    const scheduler = createTransformScheduler({ concurrency: 1, maxQueue: 0 });
    const gate = deferred();
    const a = scheduler.run("k", () => gate.promise);
    const b = scheduler.run("k", () => gate.promise);
    const failure = new Error("decode failed");
    gate.reject(failure);
    await expect(a).rejects.toBe(failure);
    await expect(b).rejects.toBe(failure);
    expect(scheduler.stats()).toEqual({ running: 0, queued: 0 });
    // The key is forgotten: the next request runs the job again.
    await expect(scheduler.run("k", async () => "retry")).resolves.toBe("retry");
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

  it("defaults to two slots per core", async () => {
    const scheduler = createTransformScheduler();
    const { availableParallelism } = await import("node:os");
    const slots = 2 * availableParallelism();
    const gate = deferred();
    const all = Array.from({ length: slots + 1 }, (_, i) => scheduler.run(`k${i}`, () => gate.promise));
    expect(scheduler.stats()).toEqual({ running: slots, queued: 1 });
    gate.resolve("x");
    await Promise.all(all);
  });
});
