import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { parseOperations } from "@/server/image/operations/parse";
import { IN_PROCESS, placeTransform } from "@/server/image/isolation/placement";
import { DEFAULT_TRANSFORM_LIMITS } from "@/server/image/settings";
import { filterBombSvg, pixelBombPng, scanBombJpeg } from "../../support/hostile";

/**
 * Which inputs the server transforms in its own process: stills whose decode is bounded by their
 * pixels, within the budgets of IN_PROCESS; everything else goes to a transform process, with a reason.
 */
const CHROME = "image/avif,image/webp,image/apng,image/*,*/*;q=0.8";
const limits = DEFAULT_TRANSFORM_LIMITS;

const place = (input: Buffer, operations = "w_400", accept: string | null = CHROME) =>
  placeTransform(input, parseOperations(operations), { accept }, limits);

/** The JPEG with its progressive frame header (SOF2) marked sequential (SOF0). */
function sequential(jpeg: Buffer): Buffer {
  const copy = Buffer.from(jpeg);
  copy[copy.indexOf(Buffer.from([0xff, 0xc2])) + 1] = 0xc0;
  return copy;
}

const photo = (width: number, height: number) =>
  sharp({
    create: { width, height, channels: 3, background: "#88aacc", noise: { type: "gaussian", mean: 120, sigma: 30 } },
  });

describe("placeTransform", () => {
  it("keeps ordinary stills in the server: baseline and progressive JPEG, PNG, WebP, a still GIF", async () => {
    const inputs = [
      await photo(1200, 800).jpeg().toBuffer(),
      await photo(1200, 800).jpeg({ progressive: true, mozjpeg: true }).toBuffer(),
      await photo(600, 400).png().toBuffer(),
      await photo(600, 400).png({ progressive: true }).toBuffer(),
      await photo(600, 400).webp().toBuffer(),
      await photo(300, 200).gif().toBuffer(),
    ];
    for (const input of inputs) expect(await place(input, "w_400,f_webp")).toEqual({ where: "in-process" });
  });

  it("sends every hostile class of the contract tests to a transform process, each for its reason", async () => {
    const frames = await sharp(
      await Promise.all(["#f00", "#0f0", "#00f"].map((c) => photo(32, 32).tint(c).png().toBuffer())),
      { join: { animated: true } },
    )
      .gif({ loop: 0 })
      .toBuffer();
    const cases: Array<[string, Buffer, string]> = [
      ["scan-bomb JPEG", scanBombJpeg(2048, 28_500), "jpeg scans"],
      // The same scans under a sequential frame header (SOF0): the header does not decide.
      ["scan-bomb JPEG declared sequential", sequential(scanBombJpeg(256, 5_000)), "jpeg scans"],
      ["decompression-bomb PNG", pixelBombPng(100_000, 100_000), "input pixels"],
      ["SVG with filters", filterBombSvg(), "format"],
      ["AVIF", await photo(64, 64).avif().toBuffer(), "format"],
      ["TIFF", await photo(64, 64).tiff().toBuffer(), "format"],
      ["animated GIF", frames, "animation"],
      ["animated WebP", await sharp(frames, { pages: -1 }).webp().toBuffer(), "animation"],
      ["not an image", Buffer.from("<html>hello</html>"), "format"],
      ["a JPEG's first bytes only", (await photo(64, 64).jpeg().toBuffer()).subarray(0, 40), "unreadable"],
    ];
    for (const [name, input, reason] of cases) {
      expect({ name, placement: await place(input) }).toEqual({ name, placement: { where: "isolated", reason } });
    }
  });

  it("sends inputs past the pixel and decoded-byte budgets away, and outputs past theirs", async () => {
    // 16-bit RGBA, interlaced: 8 bytes a pixel, twice: 3,000² is 9 MP (within the pixels) but 144 MB.
    const deep = await sharp({ create: { width: 3000, height: 3000, channels: 4, background: "#123456" } })
      .toColourspace("rgb16")
      .png({ progressive: true, compressionLevel: 1 })
      .toBuffer();
    expect((await sharp(deep).metadata()).depth).toBe("ushort");
    expect(await place(deep)).toEqual({ where: "isolated", reason: "decoded bytes" });

    // 20 MP of RGB: 60 MB decoded, within the budget; a quarter turn holds it twice more.
    const wide = await sharp({ create: { width: 5000, height: 4000, channels: 3, background: "#345" } })
      .png({ compressionLevel: 1, progressive: true })
      .toBuffer();
    expect(await place(wide, "w_1000,f_webp")).toEqual({ where: "in-process" });
    expect(await place(wide, "w_1000,r_90,f_webp")).toEqual({ where: "isolated", reason: "decoded bytes" });

    const large = await photo(2400, 1600).jpeg().toBuffer(); // 3.8 MP
    expect(await place(large, "w_2400,f_webp")).toEqual({ where: "in-process" });
    // AVIF past 1 MP, a searched quality past 2 MP: several seconds of encoding nothing can interrupt.
    expect(await place(large, "w_2000,f_avif")).toEqual({ where: "isolated", reason: "avif output" });
    expect(await place(large, "w_2000,f_auto")).toEqual({ where: "isolated", reason: "avif output" });
    expect(await place(large, "w_2000,f_auto", "image/webp")).toEqual({ where: "in-process" });
    expect(await place(large, "w_800,f_avif")).toEqual({ where: "in-process" });
    expect(await place(large, "w_2000,f_webp,q_auto")).toEqual({ where: "isolated", reason: "searched output" });
    expect(await place(large, "w_1000,f_webp,q_auto")).toEqual({ where: "in-process" });
    // An enlargement to 8192² (as the contract's AVIF attack asks) is past the output budget whatever the format.
    expect(await place(large, "w_8192,h_8192,fit_fill,enlarge,f_png")).toEqual({
      where: "isolated",
      reason: "output pixels",
    });
    expect(IN_PROCESS.maxOutputPixels).toBeLessThan(8192 * 8192);
  });
});
