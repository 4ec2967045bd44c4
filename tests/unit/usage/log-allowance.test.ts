import { describe, expect, it } from "vitest";
import { createMemoryKeyValue } from "@/server/coordination/memory-key-value";
import type { KeyValue } from "@/server/coordination/types";
import { createLogAllowance, type RowCandidate } from "@/server/usage/log-allowance";

/** One shared store standing in for Redis, every increment counted. */
function fleet() {
  const kv = createMemoryKeyValue();
  const increments: number[] = [];
  const counted: KeyValue = {
    ...kv,
    increment(key, ttl, by) {
      increments.push(by ?? 1);
      return kv.increment(key, ttl, by);
    },
  };
  return { kv: counted, increments };
}

const at = new Date(Date.UTC(2026, 10, 29, 12, 0, 30));
const batch = (n: number, projectId = "p", kind: RowCandidate["kind"] = "success", when = at): RowCandidate[] =>
  Array.from({ length: n }, () => ({ kind, projectId, at: when }));
const count = (admitted: boolean[]) => admitted.filter(Boolean).length;

describe("request-log rows counted for the fleet", () => {
  it("gives one busy project exactly its cap a minute, however many instances write", async () => {
    for (const instances of [1, 4, 16]) {
      const world = fleet();
      const allowances = Array.from({ length: instances }, () =>
        createLogAllowance(world.kv, { success: 120, failure: 60 }),
      );
      let admitted = 0;
      for (let round = 0; round < 20; round++)
        for (const allowance of allowances) admitted += count(await allowance.admit(batch(20), at));
      expect(admitted).toBe(120);
      // Asked in chunks, then not at all once each instance saw the minute spent.
      expect(world.increments.length).toBeLessThanOrEqual(120 / 15 + instances);
    }
  });

  it("costs a project with a little traffic one command a minute, and asks again in the next minute", async () => {
    const world = fleet();
    const allowance = createLogAllowance(world.kv, { success: 120, failure: 60 });
    for (let i = 0; i < 10; i++) expect(count(await allowance.admit(batch(1), at))).toBe(1);
    expect(world.increments).toEqual([15]);
    const next = new Date(at.getTime() + 60_000);
    expect(count(await allowance.admit(batch(1, "p", "success", next), next))).toBe(1);
    expect(world.increments).toEqual([15, 15]);
  });

  it("caps failures and successes apart, and each project apart", async () => {
    const world = fleet();
    const allowance = createLogAllowance(world.kv, { success: 3, failure: 2 });
    const admitted = await allowance.admit(
      [...batch(5, "p", "failure"), ...batch(5, "p", "success"), ...batch(5, "q", "failure")],
      at,
    );
    expect(admitted).toEqual([
      ...[true, true, false, false, false],
      ...[true, true, true, false, false],
      ...[true, true, false, false, false],
    ]);
  });

  it("keeps no row when Redis does not answer, and none at a cap of 0, without asking", async () => {
    const world = fleet();
    const failing = createLogAllowance(
      { ...world.kv, increment: () => Promise.reject(new Error("down")) },
      {
        success: 120,
        failure: 60,
      },
    );
    expect(count(await failing.admit(batch(5), at))).toBe(0);
    const off = createLogAllowance(world.kv, { success: 0, failure: 0 });
    expect(count(await off.admit([...batch(3), ...batch(3, "p", "failure")], at))).toBe(0);
    expect(world.increments).toEqual([]);
  });
});
