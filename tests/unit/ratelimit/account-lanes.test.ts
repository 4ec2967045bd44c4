import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { createAccountLanes } from "@/server/ratelimit/account-lanes";

const later = () => {
  let done!: () => void;
  const promise = new Promise<void>((resolve) => (done = resolve));
  return { promise, done };
};

describe("one heavy read at a time per account", () => {
  it("runs an account's reads one after another, others' beside them, and refuses past the waiting room", async () => {
    const lanes = createAccountLanes({ waiting: 2 });
    const order: string[] = [];
    const first = later();
    const running = [
      lanes.run("alice", async () => {
        order.push("alice 1");
        await first.promise;
      }),
      lanes.run("alice", async () => void order.push("alice 2")),
      lanes.run("alice", async () => void order.push("alice 3")),
      lanes.run("bob", async () => void order.push("bob 1")),
    ];
    await expect(lanes.run("alice", async () => order.push("alice 4"))).rejects.toSatisfy(
      (error) =>
        error instanceof AppError && error.code === "DASHBOARD_RATE_LIMITED" && error.headers["Retry-After"] === "1",
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual(["alice 1", "bob 1"]);
    first.done();
    await Promise.all(running);
    expect(order).toEqual(["alice 1", "bob 1", "alice 2", "alice 3"]);
  });

  it("goes on after a read that failed", async () => {
    const lanes = createAccountLanes();
    await expect(lanes.run("a", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await lanes.run("a", async () => 42)).toBe(42);
  });
});
