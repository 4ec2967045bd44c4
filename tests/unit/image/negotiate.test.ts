import { describe, expect, it } from "vitest";
import { acceptClass, negotiateFormat, negotiatesFormat, parseOperations } from "@/server/image";
import { candidatesFor, FLAT_COLOURS } from "@/server/image/quality/best-format";

const CHROME = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";
const SAFARI_15 = "image/webp,image/png,image/svg+xml,image/*;q=0.8,video/*;q=0.8,*/*;q=0.5";
const OLD = "image/png,image/*;q=0.8,*/*;q=0.5";
const ops = parseOperations;

describe("acceptClass", () => {
  it.each([
    [CHROME, "avif"],
    [SAFARI_15, "webp"],
    [OLD, "other"],
    ["*/*", "other"],
    ["image/*", "other"],
    ["", "other"],
    [null, "other"],
    ["IMAGE/AVIF", "avif"],
    ["image/avif;q=0, image/webp", "webp"],
    ["image/avif;q=0.0,image/webp;q=0", "other"],
    ["image/avif ; q=0.5", "avif"],
    ["image/avif-sequence", "other"],
  ] as const)("%s → %s", (accept, expected) => {
    expect(acceptClass(accept)).toBe(expected);
  });
});

describe("negotiateFormat with f_auto", () => {
  it("prefers AVIF, then WebP, and marks the result negotiated", () => {
    expect(negotiateFormat(ops("f_auto"), CHROME, "jpeg")).toEqual({ format: "avif", negotiated: true });
    expect(negotiateFormat(ops("f_auto"), SAFARI_15, "jpeg")).toEqual({ format: "webp", negotiated: true });
  });

  it("keeps a universal source format when Accept offers neither", () => {
    expect(negotiateFormat(ops("f_auto"), OLD, "jpeg")).toEqual({ format: "jpeg", negotiated: true });
    expect(negotiateFormat(ops("f_auto"), OLD, "png")).toEqual({ format: "png", negotiated: true });
    expect(negotiateFormat(ops("f_auto"), null, "gif")).toEqual({ format: "gif", negotiated: true });
  });

  it("does not send WebP or AVIF to a client that did not ask for them", () => {
    expect(negotiateFormat(ops("f_auto"), OLD, "webp").format).toBe("jpeg");
    expect(negotiateFormat(ops("f_auto"), OLD, "avif").format).toBe("jpeg");
    expect(negotiateFormat(ops("f_auto"), OLD, "webp", { hasAlpha: true }).format).toBe("png");
    expect(negotiateFormat(ops("f_auto"), OLD, "tiff").format).toBe("jpeg");
    expect(negotiateFormat(ops("f_auto"), OLD, "svg", { hasAlpha: true }).format).toBe("png");
  });

  it("sends animations to WebP rather than AVIF (AVIF output is a still)", () => {
    expect(negotiateFormat(ops("f_auto"), CHROME, "gif", { animated: true }).format).toBe("webp");
    expect(negotiateFormat(ops("f_auto"), CHROME, "gif", { animated: false }).format).toBe("avif");
  });

  it("depends on the Accept class only, so an ETag can be computed from the request", () => {
    for (const accept of [CHROME, SAFARI_15, OLD, null, "image/avif", "image/webp"]) {
      const cls = acceptClass(accept);
      const same = cls === "avif" ? "image/avif" : cls === "webp" ? "image/webp" : null;
      expect(negotiateFormat(ops("f_auto"), accept, "png")).toEqual(negotiateFormat(ops("f_auto"), same, "png"));
    }
  });
});

describe("negotiateFormat without f_auto", () => {
  it("uses an explicit format whatever Accept says", () => {
    expect(negotiateFormat(ops("f_webp"), OLD, "jpeg")).toEqual({ format: "webp", negotiated: false });
    expect(negotiateFormat(ops("f_jpg"), CHROME, "png")).toEqual({ format: "jpeg", negotiated: false });
    expect(negotiateFormat(ops("f_png"), CHROME, "svg")).toEqual({ format: "png", negotiated: false });
  });

  it("keeps the source's web format when no f_ is given", () => {
    for (const format of ["jpeg", "png", "webp", "gif", "avif"] as const) {
      expect(negotiateFormat(ops("w_100"), CHROME, format)).toEqual({ format, negotiated: false });
    }
  });

  it("converts other formats to JPEG, or PNG when they have alpha", () => {
    expect(negotiateFormat(ops("_"), CHROME, "tiff").format).toBe("jpeg");
    expect(negotiateFormat(ops("_"), CHROME, "heif").format).toBe("jpeg");
    expect(negotiateFormat(ops("_"), CHROME, "tiff", { hasAlpha: true }).format).toBe("png");
    expect(negotiateFormat(ops("_"), CHROME, undefined).format).toBe("jpeg");
  });

  it("passes an SVG through only when no operation is asked for", () => {
    expect(negotiateFormat(ops("_"), CHROME, "svg")).toEqual({ format: "svg", negotiated: false });
    expect(negotiateFormat(ops("w_100"), CHROME, "svg")).toEqual({ format: "png", negotiated: false });
    expect(negotiateFormat(ops("q_80"), CHROME, "svg")).toEqual({ format: "png", negotiated: false });
  });
});

describe("negotiateFormat with f_best, and the formats it tries", () => {
  it("starts from f_auto's answer, negotiated", () => {
    for (const accept of [CHROME, SAFARI_15, OLD, null]) {
      for (const source of ["jpeg", "png", "gif", "webp"]) {
        expect(negotiateFormat(ops("f_best"), accept, source)).toEqual(negotiateFormat(ops("f_auto"), accept, source));
      }
    }
    expect(negotiatesFormat(ops("f_best"))).toBe(true);
    expect(negotiatesFormat(ops("f_webp"))).toBe(false);
  });

  const pixels = (opaque: boolean, colours: number) => ({ opaque, coloursAtMost: (limit: number) => colours <= limit });

  it.each([
    ["avif", "avif", true, 100_000, { lossy: ["avif", "webp"] }],
    ["avif", "avif", true, 300, { lossy: ["avif", "webp"], lossless: "webp" }],
    ["webp", "webp", false, 100_000, { lossy: ["webp"] }],
    ["webp", "webp", true, FLAT_COLOURS, { lossy: ["webp"], lossless: "webp" }],
    ["jpeg", "other", true, 100_000, { lossy: ["jpeg"] }],
    ["png", "other", true, 100_000, { lossy: ["jpeg"], lossless: "png" }],
    ["jpeg", "other", true, 12, { lossy: ["jpeg"], lossless: "png" }],
    ["png", "other", false, 100_000, { lossy: [], lossless: "png" }],
  ] as const)("f_auto's %s for Accept class %s (opaque %s, %i colours)", (primary, accepts, opaque, colours, plan) => {
    expect(candidatesFor(primary, accepts, pixels(opaque, colours))).toEqual(plan);
  });
});
