import { describe, expect, it } from "vitest";
import { createCounters } from "@/server/coordination/counters";
import { createMemoryKeyValue } from "@/server/coordination/memory-key-value";
import type { KeyValue } from "@/server/coordination/types";
import { createSourceFailureMemory } from "@/server/delivery/source-failures";
import { AppError } from "@/server/errors";

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe("the source failure memory with a shared store", () => {
  it("answers another instance's failure, for no longer than that instance said", async () => {
    let clock = 1_000_000;
    const shared = createMemoryKeyValue();
    const first = createSourceFailureMemory({ now: () => clock, shared, ttlMs: 30_000 });
    const second = createSourceFailureMemory({ now: () => clock, shared, ttlMs: 30_000 });
    first.remember("project\n0\nhosts\nhttps://img.example/a.png?token=x", new AppError("SOURCE_NOT_FOUND"));
    await settle();
    clock += 20_000;
    expect((await second.recall("project\n0\nhosts\nhttps://img.example/a.png?token=x"))?.code).toBe(
      "SOURCE_NOT_FOUND",
    );
    clock += 10_001; // past the first instance's 30 s, though the second learned of it 10 s ago
    expect(await second.recall("project\n0\nhosts\nhttps://img.example/a.png?token=x")).toBeNull();
  });

  it("fetches when the shared store fails, and counts it", async () => {
    const counters = createCounters();
    const broken = { get: () => Promise.reject(new Error("redis away")) } as unknown as KeyValue;
    const memory = createSourceFailureMemory({ shared: broken, counters });
    expect(await memory.recall("some source")).toBeNull();
    expect(counters.get("redis_failure_sourceFailureRead")).toBe(1);
  });
});
