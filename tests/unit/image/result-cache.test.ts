import { describe, expect, it } from "vitest";
import { createResultCache, type TransformResult } from "@/server/image";

function result(bytes: number): TransformResult {
  return {
    body: Buffer.alloc(bytes),
    format: "webp",
    contentType: "image/webp",
    width: 1,
    height: 1,
    negotiated: false,
  };
}

describe("createResultCache", () => {
  it("returns what was stored and counts hits and misses", () => {
    const cache = createResultCache({ maxBytes: 1000 });
    const value = result(100);
    cache.set("a", value);
    expect(cache.get("a")).toBe(value);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.stats()).toEqual({ entries: 1, bytes: 100, hits: 1, misses: 1 });
  });

  it("evicts the least recently used entries once the bytes exceed the bound", () => {
    const cache = createResultCache({ maxBytes: 1000 });
    cache.set("a", result(250));
    cache.set("b", result(250));
    cache.set("c", result(250));
    cache.set("d", result(250));
    expect(cache.stats().bytes).toBe(1000);
    cache.set("e", result(200));
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")).toBeDefined();
    expect(cache.stats()).toMatchObject({ entries: 4, bytes: 950 });
  });

  it("counts a read as use: a recently read entry outlives older unread ones", () => {
    const cache = createResultCache({ maxBytes: 1000 });
    cache.set("a", result(250));
    cache.set("b", result(250));
    cache.set("c", result(250));
    cache.set("d", result(250));
    cache.get("a");
    cache.set("e", result(250));
    expect(cache.get("a")).toBeDefined();
    expect(cache.get("b")).toBeUndefined();
  });

  it("evicts as many entries as a large one needs", () => {
    const cache = createResultCache({ maxBytes: 1000 });
    for (const key of ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]) cache.set(key, result(100));
    cache.set("big", result(250));
    expect(cache.stats()).toMatchObject({ entries: 8, bytes: 950 });
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("c")).toBeUndefined();
    expect(cache.get("d")).toBeDefined();
  });

  it("does not store entries larger than a quarter of the bound", () => {
    const cache = createResultCache({ maxBytes: 1000 });
    cache.set("small", result(100));
    cache.set("huge", result(251));
    expect(cache.get("huge")).toBeUndefined();
    expect(cache.get("small")).toBeDefined();
    expect(cache.stats().bytes).toBe(100);
  });

  it("replaces an entry under the same key without double counting", () => {
    const cache = createResultCache({ maxBytes: 1000 });
    cache.set("a", result(100));
    cache.set("a", result(200));
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: 200 });
    cache.set("a", result(900));
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
  });
});
