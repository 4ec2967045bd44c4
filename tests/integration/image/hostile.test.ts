import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import {
  configureSharp,
  DEFAULT_TRANSFORM_LIMITS,
  parseOperations,
  transformImage,
  type TransformLimits,
} from "@/server/image";
import { pixelBombPng, pngChunk } from "../../support/hostile";
import { animatedGif, solid } from "./generate";

function transform(input: Buffer, segment: string, limits: Partial<TransformLimits> = {}) {
  return transformImage(input, parseOperations(segment), { accept: null }, { ...DEFAULT_TRANSFORM_LIMITS, ...limits });
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

beforeAll(() => {
  configureSharp();
});

describe("pixel limits", () => {
  it("refuses a 100000×100000 PNG bomb quickly, without allocating its pixels", async () => {
    const bomb = pixelBombPng(100_000, 100_000);
    expect(bomb.length).toBeLessThan(1000);
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const error = await refusal(transform(bomb, "w_100,f_webp"));
    expect(error.code).toBe("IMAGE_TOO_LARGE");
    expect(error.status).toBe(413);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * 1024 * 1024);
  });

  it("refuses a header just over the configured limit (below libvips' own default)", async () => {
    // 64 MP: over our 50 MP default, under libvips' own 268 MP default, so our limit is what refuses it.
    const error = await refusal(transform(pixelBombPng(8000, 8000), "_"));
    expect(error.code).toBe("IMAGE_TOO_LARGE");
    await expect(transform(pixelBombPng(8000, 8000), "_", { maxInputPixels: 70_000_000 })).rejects.toMatchObject({
      code: "IMAGE_DECODE_FAILED",
    });
  });

  it("counts all frames of an animation against the pixel limit", async () => {
    // 6 frames of 100×100 = 60000 px: over a 50000 px limit only when every frame is decoded.
    const gif = await animatedGif(100, 100, [[255, 0, 0], [0, 255, 0], [0, 0, 255], [9, 9, 9], [90, 90, 90], [200, 200, 200]]);
    const limits = { maxInputPixels: 50_000 };
    const error = await refusal(transform(gif, "f_webp", limits));
    expect(error.code).toBe("IMAGE_TOO_LARGE");
    // One frame is within the limit: a still of the same animation is fine.
    await expect(transform(gif, "f_webp,anim_false", limits)).resolves.toMatchObject({ width: 100 });
    await expect(transform(gif, "f_png", limits)).resolves.toMatchObject({ width: 100 });
  });

  it("refuses more frames than maxFrames", async () => {
    const gif = await animatedGif(10, 10, [[255, 0, 0], [0, 255, 0], [0, 0, 255]]);
    const error = await refusal(transform(gif, "_", { maxFrames: 2 }));
    expect(error.code).toBe("IMAGE_TOO_LARGE");
    expect(error.detail).toMatch(/3 frames/);
  });

  it("refuses an SVG that declares an enormous canvas", async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="10" height="10"/></svg>');
    expect((await refusal(transform(svg, "f_png"))).code).toBe("IMAGE_TOO_LARGE");
  });
});

describe("undecodable input", () => {
  it("answers 422 for a truncated JPEG", async () => {
    const jpeg = await sharp({ create: { width: 600, height: 400, channels: 3, background: "#000", noise: { type: "gaussian", mean: 128, sigma: 30 } } })
      .jpeg()
      .toBuffer();
    const error = await refusal(transform(jpeg.subarray(0, Math.floor(jpeg.length / 2)), "w_100"));
    expect(error.code).toBe("IMAGE_DECODE_FAILED");
    expect(error.status).toBe(422);
  });

  it("answers 422 for a PNG whose pixel data is garbage", async () => {
    const png = Buffer.concat([pixelBombPng(64, 64).subarray(0, 33), pngChunk("IDAT", Buffer.from("not zlib at all")), pngChunk("IEND", Buffer.alloc(0))]);
    expect((await refusal(transform(png, "f_webp"))).code).toBe("IMAGE_DECODE_FAILED");
  });

  it.each([
    ["random bytes", Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256))],
    ["a text file", Buffer.from("Hello, this is not an image.\n".repeat(20))],
    ["an HTML page", Buffer.from("<!doctype html><html><body><img src=x onerror=alert(1)></body></html>")],
    ["an empty body", Buffer.alloc(0)],
    ["a PPM image (decodable, not allowed)", Buffer.concat([Buffer.from("P6\n2 2\n255\n"), Buffer.alloc(12, 200)])],
  ])("answers 415 for %s", async (_, bytes) => {
    const error = await refusal(transform(bytes, "w_100"));
    expect(error.code).toBe("UNSUPPORTED_IMAGE");
    expect(error.status).toBe(415);
  });
});

describe("SVG with active content", () => {
  const hostile = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><script>alert(document.cookie)</script>' +
      '<rect width="40" height="40" fill="#00f" onclick="alert(1)"/></svg>',
  );

  it("is refused when it would be passed through", async () => {
    const error = await refusal(transform(hostile, "_"));
    expect(error.code).toBe("UNSUPPORTED_IMAGE");
    expect(error.publicMessage).toMatch(/f_png/);
  });

  it("is rasterised safely when a raster format is asked for", async () => {
    const result = await transform(hostile, "f_png");
    expect(result).toMatchObject({ format: "png", contentType: "image/png", width: 40, height: 40 });
    expect(result.body.includes("script")).toBe(false);
    expect((await sharp(result.body).metadata()).format).toBe("png");
  });

  it("is rasterised to PNG (not a 500) when resized without f_", async () => {
    await expect(transform(hostile, "w_20")).resolves.toMatchObject({ format: "png", width: 20 });
  });
});

describe("transform timeout", () => {
  it("stops libvips past the budget and answers TRANSFORM_TIMEOUT", async () => {
    // A 36 MP image blurred with sigma 100 takes many seconds on this machine; the budget is one.
    const big = await solid(6000, 6000, [128, 128, 128]).jpeg().toBuffer();
    const started = performance.now();
    const error = await refusal(transform(big, "blur_100", { timeoutMs: 1000 }));
    expect(error.code).toBe("TRANSFORM_TIMEOUT");
    expect(error.status).toBe(504);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe("error mapping", () => {
  it("keeps errors in our own code as bugs, not as bad input", async () => {
    const { toImageError } = await import("@/server/image/sharp-errors");
    const bug = new Error("Expected integer between 1 and 16383 for width but received -1 of type number");
    expect(toImageError(bug, "transform")).toBe(bug);
    expect(toImageError(new Error("timeout: 12% complete"), "transform")).toMatchObject({ code: "TRANSFORM_TIMEOUT" });
    expect(toImageError(new Error("Input image exceeds pixel limit"), "inspect")).toMatchObject({ code: "IMAGE_TOO_LARGE" });
    expect(toImageError(new Error("Processed image is too large for the WebP format"), "transform")).toMatchObject({
      code: "IMAGE_TOO_LARGE",
    });
  });
});
