import { describe, expect, it } from "vitest";
import { createSingleFlight } from "@/server/single-flight";

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("single flight", () => {
  it("gives callers of a running key its job, and starts none of theirs", async () => {
    const flights = createSingleFlight<string>();
    const gate = deferred<string>();
    let started = 0;
    const start = () => {
      started++;
      return gate.promise;
    };
    const first = flights.run("k", start);
    expect(flights.running("k")).toBe(first);
    const second = flights.run("k", start);
    gate.resolve("made");
    expect(await Promise.all([first, second])).toEqual(["made", "made"]);
    expect(started).toBe(1);
    expect(flights.running("k")).toBeUndefined();
  });

  it("never caches a failure: every waiter sees it, and the next call starts again", async () => {
    const flights = createSingleFlight<string>();
    const gate = deferred<string>();
    const a = flights.run("k", () => gate.promise);
    const b = flights.run("k", () => Promise.resolve("not started"));
    gate.reject(new Error("origin down"));
    await expect(a).rejects.toThrow("origin down");
    await expect(b).rejects.toThrow("origin down");
    expect(await flights.run("k", () => Promise.resolve("again"))).toBe("again");
  });

  it("after forget, a new job starts; the old one's waiters keep it, and its end leaves the new one in place", async () => {
    const flights = createSingleFlight<string>();
    const old = deferred<string>();
    const fresh = deferred<string>();
    const before = flights.run("k", () => old.promise);
    flights.forget("k");
    const after = flights.run("k", () => fresh.promise);
    old.resolve("stale");
    expect(await before).toBe("stale");
    expect(flights.running("k")).toBe(after);
    fresh.resolve("current");
    expect(await after).toBe("current");
    expect(flights.running("k")).toBeUndefined();
  });

  it("keeps keys apart", async () => {
    const flights = createSingleFlight<string>();
    const results = await Promise.all([flights.run("a", async () => "A"), flights.run("b", async () => "B")]);
    expect(results).toEqual(["A", "B"]);
  });
});
