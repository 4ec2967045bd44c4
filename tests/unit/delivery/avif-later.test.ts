import { describe, expect, it } from "vitest";
import { answersAvifLater, requestedPixels } from "@/server/delivery/avif-later";
import { answerTargets } from "@/server/delivery/answer-targets";
import { withoutSearch } from "@/server/delivery/default-quality";
import { interimPlan } from "@/server/delivery/interim";
import { createLaterQueue } from "@/server/delivery/later-queue";
import { createPublicNames } from "@/server/delivery/public-names";
import { successHeaders } from "@/server/delivery/success-headers";
import { parseOperations } from "@/server/image";
import { meteredIncrement } from "@/server/usage/buffer-usage";

const CHROME = "image/avif,image/webp,*/*";
const later = (segment: string, accept: string | null = CHROME, minPixels = 250_000) =>
  answersAvifLater(parseOperations(segment), accept, { minPixels, maxPixels: 4_000_000 });

describe("which requests get an interim answer", () => {
  it("predicts the output's pixels from w_, h_ and dpr_, and counts an unknown size as large", () => {
    expect(requestedPixels(parseOperations("w_800,h_600"))).toBe(480_000);
    expect(requestedPixels(parseOperations("w_500"))).toBe(250_000);
    expect(requestedPixels(parseOperations("h_300,dpr_2"))).toBe(360_000);
    expect(requestedPixels(parseOperations("f_auto"))).toBe(Infinity);
  });

  it("f_auto or f_best, AVIF in Accept, large enough; never info, placeholders or a named format", () => {
    expect(later("w_800,f_auto")).toBe(true);
    expect(later("w_800,f_best")).toBe(true);
    expect(later("f_auto")).toBe(true);
    expect(later("w_400,f_auto")).toBe(false);
    expect(later("w_800,f_auto", "image/webp,*/*")).toBe(false);
    expect(later("w_800,f_auto", null)).toBe(false);
    expect(later("w_800,f_avif")).toBe(false);
    expect(later("w_800,f_auto,info")).toBe(false);
    expect(later("w_800,f_auto,placeholder")).toBe(false);
    expect(later("w_800,f_auto", CHROME, 0)).toBe(false);
    // Over the AVIF area the negotiated answer is WebP anyway: nothing to make later.
    expect(later("w_2100,h_2000,f_auto")).toBe(false);
    expect(later("w_2000,h_2000,f_auto")).toBe(true);
  });

  it("answers q_auto and f_best at the format's default quality first, f_best as f_auto", () => {
    const policy = (quality: boolean, minPixels = 250_000) => ({
      avif: { minPixels, maxPixels: 4_000_000 },
      quality,
      queue: createLaterQueue({ concurrency: 1, perTenant: 1 }),
    });
    const plan = (segment: string, accept: string | null = CHROME, quality = true) => {
      const ops = parseOperations(segment);
      return interimPlan(ops, accept, policy(quality), withoutSearch(ops));
    };
    expect(plan("w_800,f_avif,q_auto")).toMatchObject({
      operations: { width: 800, format: "avif" },
      accept: CHROME,
      avif: false,
      quality: true,
    });
    expect(plan("w_800,f_avif,q_auto")!.operations.qualityTarget).toBeUndefined();
    // Both: the WebP at its default quality first, the searched AVIF (or WebP) after.
    expect(plan("w_800,f_best,q_auto:eco")).toMatchObject({
      operations: { width: 800, format: "auto" },
      accept: "image/webp",
      avif: true,
      quality: true,
    });
    expect(plan("w_400,f_best", "image/webp")).toMatchObject({ operations: { format: "auto" }, accept: "image/webp" });
    // Only the AVIF when the search is off, nothing for a fixed quality or a description.
    expect(plan("w_800,f_auto,q_auto", CHROME, false)).toMatchObject({ avif: true, quality: false });
    expect(plan("w_800,f_auto,q_auto", CHROME, false)!.operations.qualityTarget).toBe("good");
    expect(plan("w_400,f_webp,q_60")).toBeNull();
    expect(plan("w_400,q_auto,info")).toBeNull();
    // Nothing left but the search: without operations an SVG would pass through, not be rasterised.
    expect(plan("q_auto", "image/webp")).toBeNull();
    expect(plan("f_best", "image/webp")).toMatchObject({ operations: { format: "auto" } });
    // The variant key ignores undefined keys; so does the interim (q_auto parses with quality undefined).
    expect(Object.keys(withoutSearch(parseOperations("w_300,q_auto")))).toEqual(["width"]);
    expect(plan("w_400,f_best,placeholder")).toBeNull();
  });

  it("marks the answer short-lived and not immutable, within the signature's lifetime", () => {
    const operations = parseOperations("w_800,f_auto");
    const project = { id: "p", allowedSourceHosts: [], cache: { base: 0, sources: {} }, fallback: null };
    const location = { kind: "local" as const, relativePath: "photo.jpg" };
    const deps = {
      later: {
        avif: { minPixels: 250_000, maxPixels: 4_000_000 },
        quality: false,
        queue: createLaterQueue({ concurrency: 1, perTenant: 1 }),
      },
      publicNames: createPublicNames("test-master"),
    };
    const interimOf = (maxSeconds: number, exp?: number) =>
      answerTargets({ operations, fixed: operations, hints: [] }, CHROME, { location, project, maxSeconds, exp }, deps)
        .interim!();
    const base = { immutable: false, etag: '"e"', tags: [], negotiated: true, refererRestricted: false };
    const headers = (maxSeconds: number) => successHeaders({ ...base, maxSeconds, requestId: "r", serverTiming: "" });
    const year = interimOf(31_536_000);
    expect(year.maxSeconds).toBe(60);
    expect(headers(year.maxSeconds).get("cache-control")).toBe("public, max-age=60, s-maxage=60");
    expect(headers(year.maxSeconds).get("cdn-cache-control")).toBe("public, max-age=60");
    expect(interimOf(20, 1_000).maxSeconds).toBe(20);
  });

  it("meters the later encode as a transform, not as a request: its request was metered", () => {
    const base = {
      requestId: "r",
      status: "success",
      httpStatus: 200,
      durationMs: 1,
      projectId: "p",
      apiKeyId: "k",
    } as const;
    const at = new Date();
    expect(meteredIncrement({ ...base, cache: "miss", sentBytes: 10 }, at)).toMatchObject({
      requests: 1,
      bytes: 10,
      transforms: 1,
    });
    expect(meteredIncrement({ ...base, cache: "hit", sentBytes: 10 }, at)).toMatchObject({
      requests: 1,
      bytes: 10,
      transforms: 0,
    });
    expect(meteredIncrement({ ...base, cache: "later", sentBytes: 0 }, at)).toMatchObject({
      requests: 0,
      bytes: 0,
      transforms: 1,
    });
  });
});
