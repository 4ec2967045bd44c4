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

  it("shares only what the origin said: a timeout may be this instance's own trouble", async () => {
    const shared = createMemoryKeyValue();
    const first = createSourceFailureMemory({ shared });
    const second = createSourceFailureMemory({ shared });
    first.remember("slow source", new AppError("SOURCE_TIMEOUT"));
    first.remember("failing connection", new AppError("SOURCE_FAILED", { detail: "could not connect" }));
    first.remember("redirected", new AppError("SOURCE_NOT_FOUND", { detail: "Location /a?sig=s3cret" }));
    await settle();
    expect((await first.recall("slow source"))?.code).toBe("SOURCE_TIMEOUT");
    expect(await second.recall("slow source")).toBeNull();
    expect(await second.recall("failing connection")).toBeNull();
    expect((await second.recall("redirected"))?.code).toBe("SOURCE_NOT_FOUND");
    const { keys } = await shared.scan("source:failure:", "0", 10);
    expect(keys).toHaveLength(1);
    expect(await shared.get(keys[0]!)).not.toContain("s3cret");
  });

  it("fetches when the shared store fails, and counts it", async () => {
    const counters = createCounters();
    const broken = { get: () => Promise.reject(new Error("redis away")) } as unknown as KeyValue;
    const memory = createSourceFailureMemory({ shared: broken, counters });
    expect(await memory.recall("some source")).toBeNull();
    expect(counters.get("redis_failure_sourceFailureRead")).toBe(1);
  });
});
