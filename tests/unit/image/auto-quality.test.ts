import { describe, expect, it } from "vitest";
import { MAX_ENCODES, QUALITY_LEVELS, searchQuality, type QualityLevel } from "@/server/image/quality/auto-quality";

/**
 * The search against a model image whose score rises with quality as `curve` says: what it tried,
 * what it chose. Encodes are fakes that carry their quality; scoring reads it back.
 */
async function search(curve: (quality: number) => number, level: QualityLevel = "good", format = "webp" as const) {
  const tried: number[] = [];
  const result = await searchQuality({
    format,
    level,
    budgetMs: 20_000,
    encodeAt: async (quality) => {
      tried.push(quality);
      return { data: Buffer.from([quality]), info: { width: 1, height: 1 } };
    },
    scoreOf: async (encoded) => curve(encoded.data[0]!),
  });
  return { tried, result };
}

describe("q_auto's search", () => {
  it.each([
    ["an easy image", (q: number) => 40 + q * 0.6],
    ["a typical one", (q: number) => 20 + q * 0.75],
    ["a hard one", (q: number) => q * 0.9],
    ["one that never gets there", (q: number) => q * 0.5],
    ["one that is there at any quality", () => 99],
  ])("for %s, makes at most four encodes and keeps the lowest that reached the target", async (_name, curve) => {
    const { tried, result } = await search(curve);
    expect(tried.length).toBeLessThanOrEqual(MAX_ENCODES);
    expect(result.encodes).toBe(tried.length);
    expect(new Set(tried).size).toBe(tried.length);
    const reached = tried.filter((q) => curve(q) >= QUALITY_LEVELS.good);
    if (reached.length > 0) {
      expect(result.quality).toBe(Math.min(...reached));
      expect(result.score).toBeGreaterThanOrEqual(QUALITY_LEVELS.good);
    } else {
      // Nothing reached it: the last encode was the top of the range, and that is what is served.
      expect(result.quality).toBe(Math.max(...tried));
      expect(tried.at(-1)).toBe(95);
    }
  });

  it("lands within a few quality steps of the exact answer on a smooth curve", async () => {
    const curve = (q: number) => 20 + q * 0.75; // reaches 80 at exactly q 80
    const { result } = await search(curve);
    expect(result.quality).toBeGreaterThanOrEqual(80);
    expect(result.quality).toBeLessThanOrEqual(84);
  });

  it("serves its best so far when the time budget runs out", async () => {
    let calls = 0;
    const result = await searchQuality({
      format: "jpeg",
      level: "best",
      budgetMs: 500,
      encodeAt: async (quality) => {
        calls++;
        return { data: Buffer.from([quality]), info: { width: 1, height: 1 } };
      },
      scoreOf: async () => 95,
    });
    expect(calls).toBe(1);
    expect(result.quality).toBe(90);
  });
});
