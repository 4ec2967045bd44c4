import { describe, expect, it } from "vitest";
import type { Tried } from "@/server/image/quality/auto-quality";
import { kneeOf, OUT_OF_REACH_BYTES } from "@/server/image/quality/out-of-reach";

/** A fake encode: its bytes and score are the model's, its quality read back from the first byte. */
function model(points: Record<number, [bytes: number, score: number]>) {
  const encodeAt = async (quality: number) => {
    const [bytes] = points[quality]!;
    const data = Buffer.alloc(bytes);
    data[0] = quality;
    return { data, info: { width: 1, height: 1 } };
  };
  const scoreOf = async (encoded: { data: Buffer }) => points[encoded.data[0]!]![1];
  const made = async (...qualities: number[]): Promise<Tried[]> =>
    Promise.all(
      qualities.map(async (quality) => ({ quality, encoded: await encodeAt(quality), score: points[quality]![1] })),
    );
  return { encodeAt, scoreOf, made };
}

describe("a level out of reach", () => {
  // A WebP whose q95 scores 76.9 (one of the images): q80 is the default.
  const webp = model({ 80: [40_000, 74], 87: [52_000, 75.8], 91: [62_000, 76.3], 95: [130_000, 76.9] });

  it("answers the knee: the steps that buy points cheaply, and none past 1.5× the default's bytes", async () => {
    const { knee, encodes } = await kneeOf({
      format: "webp",
      tried: await webp.made(87, 91, 95),
      encodeAt: webp.encodeAt,
      scoreOf: webp.scoreOf,
      budgetMs: 5000,
      lastAttemptMs: 100,
    });
    // 80 → 87: 1.8 points for 30 % (17 % a point), taken; 87 → 91: 0.5 for 19 % (38 % a point), not.
    expect(knee.quality).toBe(87);
    expect(encodes).toBe(1);
    expect(knee.encoded.data.length).toBeLessThanOrEqual(OUT_OF_REACH_BYTES * 40_000);
  });

  it("without time for the default's encode, walks from the lowest quality the search made", async () => {
    let encodes = 0;
    const { knee, encodes: made } = await kneeOf({
      format: "webp",
      tried: await webp.made(87, 91, 95),
      encodeAt: async (quality) => {
        encodes++;
        return webp.encodeAt(quality);
      },
      scoreOf: webp.scoreOf,
      // The top's encode took 900 ms; 1,200 are left, less than half as long again.
      budgetMs: 1200,
      lastAttemptMs: 900,
    });
    expect([encodes, made]).toEqual([0, 0]);
    // From q87 (52 KB): q91 adds 0.5 for 19 %, not worth it; still said to be out of reach by the caller.
    expect(knee.quality).toBe(87);
  });

  it("makes the default quality's encode only when the search did not", async () => {
    const { knee, encodes } = await kneeOf({
      format: "webp",
      tried: await webp.made(80, 95),
      encodeAt: webp.encodeAt,
      scoreOf: webp.scoreOf,
      budgetMs: 5000,
      lastAttemptMs: 100,
    });
    expect(encodes).toBe(0);
    // q95 is 3.25× the default's bytes: over the cap whatever it buys.
    expect(knee.quality).toBe(80);
  });
});
