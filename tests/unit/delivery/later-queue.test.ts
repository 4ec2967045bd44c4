import { describe, expect, it } from "vitest";
import { createLaterQueue } from "@/server/delivery/later-queue";

/** A job that finishes when told to, recording that it started. */
function gate(log: string[], name: string) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { job: async () => (log.push(name), await opened, name), open };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("the queue of work after answers", () => {
  it("runs one job at a time, tenants in turn, and every job it accepted", async () => {
    const queue = createLaterQueue({ concurrency: 1, perTenant: 10 });
    const log: string[] = [];
    const jobs = ["a1", "a2", "a3", "b1", "b2", "c1"].map((name) => ({ name, ...gate(log, name) }));
    const results = jobs.map(({ name, job }) => queue.run(name[0]!, job));
    await settle();
    expect(log).toEqual(["a1"]);
    expect(queue.stats()).toEqual({ running: 1, waiting: 5 });
    for (let i = 0; i < jobs.length; i++) {
      // Let whichever job is running finish.
      jobs.find((j) => j.name === log.at(-1))!.open();
      await settle();
      await settle();
    }
    expect(await Promise.all(results)).toEqual(["a1", "a2", "a3", "b1", "b2", "c1"]);
    // a's burst did not keep b and c waiting behind it: no tenant ran twice in a row while another waited.
    const tenants = log.map((name) => name[0]);
    expect(tenants.slice(1).every((tenant, i) => tenant !== tenants[i])).toBe(true);
    // b's first job ran second, not after a's whole burst.
    expect(log[1]).toBe("b1");
    expect(queue.stats()).toEqual({ running: 0, waiting: 0 });
  });

  it("drops a tenant's jobs past its line, and only that tenant's", async () => {
    const queue = createLaterQueue({ concurrency: 1, perTenant: 2 });
    const log: string[] = [];
    const first = gate(log, "a1");
    const running = queue.run("a", first.job);
    const waiting = [queue.run("a", async () => "a2"), queue.run("a", async () => "a3")];
    expect(await queue.run("a", async () => "a4")).toBeNull();
    const other = queue.run("b", async () => "b1");
    first.open();
    expect(await Promise.all([running, ...waiting, other])).toEqual(["a1", "a2", "a3", "b1"]);
  });

  it("passes a job's failure to its caller and goes on with the next", async () => {
    const queue = createLaterQueue({ concurrency: 1, perTenant: 5 });
    const failed = queue.run("a", async () => {
      throw new Error("encode failed");
    });
    const next = queue.run("a", async () => "made");
    await expect(failed).rejects.toThrow("encode failed");
    expect(await next).toBe("made");
  });

  it("waits for the scheduler's room before it starts a job", async () => {
    let makeRoom = () => {};
    const room = new Promise<void>((resolve) => (makeRoom = resolve));
    const asked: string[] = [];
    const queue = createLaterQueue({
      concurrency: 1,
      perTenant: 5,
      roomFor: (tenant) => {
        asked.push(tenant);
        return room;
      },
    });
    let started = false;
    const job = queue.run("a", async () => (started = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect([started, asked]).toEqual([false, ["a"]]);
    expect(queue.stats()).toEqual({ running: 1, waiting: 0 });
    makeRoom();
    expect(await job).toBe(true);
  });

  it("runs one job per key at a time: the same AVIF asked again while it waits or runs is not queued twice", async () => {
    const queue = createLaterQueue({ concurrency: 1, perTenant: 5 });
    const log: string[] = [];
    const first = gate(log, "first");
    const running = queue.run("a", first.job, "k1");
    expect(await queue.run("a", async () => "again", "k1")).toBeNull();
    const other = queue.run("a", async () => "other key", "k2");
    expect(await queue.run("a", async () => "again", "k2")).toBeNull();
    first.open();
    expect(await Promise.all([running, other])).toEqual(["first", "other key"]);
    // Done: the key may be asked for again.
    expect(await queue.run("a", async () => "later again", "k1")).toBe("later again");
  });
});
