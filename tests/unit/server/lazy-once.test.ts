import { describe, expect, it } from "vitest";
import { lazyOnce } from "@/server/lazy-once";

describe("lazyOnce", () => {
  it("loads once for every caller, concurrent or later", async () => {
    let loads = 0;
    const get = lazyOnce(async () => ({ id: ++loads }));
    const [a, b] = await Promise.all([get(), get()]);
    expect(a).toBe(b);
    expect(await get()).toBe(a);
    expect(loads).toBe(1);
  });

  it("tries again after a failed load, and keeps the first success", async () => {
    let loads = 0;
    const get = lazyOnce(async () => {
      loads += 1;
      if (loads === 1) throw new Error("module missing");
      return loads;
    });
    await expect(get()).rejects.toThrow("module missing");
    expect(await get()).toBe(2);
    expect(await get()).toBe(2);
    expect(loads).toBe(2);
  });
});
