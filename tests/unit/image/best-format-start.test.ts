import { describe, expect, it } from "vitest";
import { SEARCH } from "@/server/image/quality/auto-quality";
import { startFrom } from "@/server/image/quality/best-format";

describe("f_best's second format", () => {
  const avif = (quality: number) => ({ format: "avif" as const, searched: { quality } });

  it("starts at its table's start when the first format landed at its own", () => {
    expect(startFrom(avif(SEARCH.avif.start.good), "webp", "good")).toBe(SEARCH.webp.start.good);
  });

  it("moves with how hard the first format found the image, at most ten steps, never to the top", () => {
    // The demo photo at 800 px: AVIF landed at q78, 21 steps over its start (0.8 a step), which is
    // 28 of WebP's steps (0.6 a step): held to ten, so WebP starts at 97 rather than at its top.
    expect(startFrom(avif(78), "webp", "good")).toBe(SEARCH.webp.start.good + 10);
    expect(startFrom(avif(60), "webp", "good")).toBe(SEARCH.webp.start.good + 4);
    expect(startFrom(avif(20), "webp", "good")).toBe(SEARCH.webp.start.good - 10);
    expect(startFrom(avif(100), "webp", "best")).toBe(SEARCH.webp.max - 1);
  });
});
