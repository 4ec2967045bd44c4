import { describe, expect, it } from "vitest";
import { encodeWithinBytes, startingQuality, type EncodeAt } from "@/server/image/fit-bytes";

/** A fake encoder whose output is `quality × 100` bytes; records the qualities and budgets asked. */
function encoder(delayMs = 0) {
  const calls: Array<{ quality: number; budgetMs: number }> = [];
  const encodeAt: EncodeAt = async (quality, budgetMs) => {
    calls.push({ quality, budgetMs });
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    return { data: Buffer.alloc(quality * 100), info: { width: 1, height: 1 } };
  };
  return { calls, encodeAt };
}

describe("encodeWithinBytes", () => {
  it("keeps the first encode when it fits", async () => {
    const { calls, encodeAt } = encoder();
    expect((await encodeWithinBytes(encodeAt, 8000, 80, 20_000)).data.length).toBe(8000);
    expect(calls.map((c) => c.quality)).toEqual([80]);
  });

  it("steps down to the first quality that fits", async () => {
    const { calls, encodeAt } = encoder();
    expect((await encodeWithinBytes(encodeAt, 4500, 80, 20_000)).data.length).toBe(4000);
    expect(calls.map((c) => c.quality)).toEqual([80, 60, 40]);
  });

  it("answers the smallest after at most four encodes, never under quality 10", async () => {
    const { calls, encodeAt } = encoder();
    expect((await encodeWithinBytes(encodeAt, 100, 80, 20_000)).data.length).toBe(2400);
    expect(calls.map((c) => c.quality)).toEqual([80, 60, 40, 24]);
    const low = encoder();
    await encodeWithinBytes(low.encodeAt, 100, 20, 20_000);
    expect(low.calls.map((c) => c.quality)).toEqual([20, 15, 10]);
  });

  it("shares one budget: each encode gets what is left, and none starts with under a second", async () => {
    const { calls, encodeAt } = encoder(600);
    await encodeWithinBytes(encodeAt, 100, 80, 2000);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.budgetMs).toBeLessThan(1500);
    expect(calls[1]!.budgetMs).toBeGreaterThanOrEqual(1000);
  });
});

describe("startingQuality", () => {
  it("starts from q_, a placeholder's, or the format's default on q_'s scale", () => {
    expect(startingQuality({ quality: 70 }, "webp")).toBe(70);
    expect(startingQuality({ placeholder: true }, "webp")).toBe(40);
    expect(startingQuality({}, "jpeg")).toBe(80);
    expect(startingQuality({ format: "avif" }, "avif")).toBe(50);
    expect(startingQuality({ format: "auto" }, "avif")).toBe(80);
  });
});
