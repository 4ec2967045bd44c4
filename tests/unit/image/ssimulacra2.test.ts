import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { ssimulacra2, type RawImage } from "@/server/image/quality/ssimulacra2";

const FIXTURES = path.resolve("tests/fixtures/ssimulacra2");

async function decoded(input: string | Buffer): Promise<RawImage> {
  const { data, info } = await sharp(typeof input === "string" ? path.join(FIXTURES, input) : input)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels: info.channels as 3 | 4 };
}

/** Scores of libjxl's reference tool for the same pairs (tests/fixtures/ssimulacra2/README.md). */
const REFERENCE = [
  ["q20.jpg", 57.14559032],
  ["q45.jpg", 68.62747595],
  ["q70.jpg", 79.38805044],
  ["q90.jpg", 90.85152474],
] as const;

describe("SSIMULACRA 2", () => {
  it.each(REFERENCE)(
    "scores source.png against %s within 1 point of the reference implementation",
    async (file, score) => {
      const [original, distorted] = await Promise.all([decoded("source.png"), decoded(file)]);
      expect(Math.abs(ssimulacra2(original, distorted) - score)).toBeLessThanOrEqual(1);
    },
  );

  it("scores an image against itself 100, and a heavier encode lower than a lighter one", async () => {
    const original = await decoded("source.png");
    expect(ssimulacra2(original, original)).toBe(100);
    const [q20, q90] = await Promise.all([decoded("q20.jpg"), decoded("q90.jpg")]);
    expect(ssimulacra2(original, q20)).toBeLessThan(ssimulacra2(original, q90));
  });

  it("sees damage to the alpha of mid-grey content, scoring over dark and light grey", async () => {
    // A mid-grey square on transparency; the "encode" keeps every colour but halves the square's alpha.
    const square = (alpha: number) =>
      sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 128, g: 128, b: 128, alpha: 0 } } })
        .composite([
          {
            input: { create: { width: 32, height: 32, channels: 4, background: { r: 128, g: 128, b: 128, alpha } } },
            left: 16,
            top: 16,
          },
        ])
        .png()
        .toBuffer();
    const original = await decoded(await square(1));
    expect(original.channels).toBe(4);
    expect(ssimulacra2(original, original)).toBe(100);
    // Over one mid grey (0.5) both would be the same grey everywhere: a perfect 100.
    expect(ssimulacra2(original, await decoded(await square(0.5)))).toBeLessThan(90);
  });

  it("refuses images of different sizes and images under 8×8", async () => {
    const original = await decoded("source.png");
    const cropped = await decoded(await sharp(path.join(FIXTURES, "source.png")).resize(128).png().toBuffer());
    expect(() => ssimulacra2(original, cropped)).toThrow(RangeError);
    const tiny = await decoded(await sharp(path.join(FIXTURES, "source.png")).resize(7).png().toBuffer());
    expect(() => ssimulacra2(tiny, tiny)).toThrow(RangeError);
  });
});
