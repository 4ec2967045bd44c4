import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { DEFAULT_TRANSFORM_LIMITS, parseOperations, type TransformLimits } from "@/server/image";
import { configureSharp, transformImage } from "@/server/image/engine";
import { pixelBombPng, pngChunk, svgEmbedding } from "../../support/hostile";
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
    const gif = await animatedGif(100, 100, [
      [255, 0, 0],
      [0, 255, 0],
      [0, 0, 255],
      [9, 9, 9],
      [90, 90, 90],
      [200, 200, 200],
    ]);
    const limits = { maxInputPixels: 50_000 };
    const error = await refusal(transform(gif, "f_webp", limits));
    expect(error.code).toBe("IMAGE_TOO_LARGE");
    // One frame is within the limit: a still of the same animation is fine.
    await expect(transform(gif, "f_webp,anim_false", limits)).resolves.toMatchObject({ width: 100 });
    await expect(transform(gif, "f_png", limits)).resolves.toMatchObject({ width: 100 });
  });

  it("refuses more frames than maxFrames", async () => {
    const gif = await animatedGif(10, 10, [
      [255, 0, 0],
      [0, 255, 0],
      [0, 0, 255],
    ]);
    const error = await refusal(transform(gif, "_", { maxFrames: 2 }));
    expect(error.code).toBe("IMAGE_TOO_LARGE");
    expect(error.detail).toMatch(/3 frames/);
  });

  it("refuses an SVG that declares an enormous canvas", async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="10" height="10"/></svg>',
    );
    expect((await refusal(transform(svg, "f_png"))).code).toBe("IMAGE_TOO_LARGE");
  });
});

describe("rasters embedded in SVG", () => {
  it("counts a data: PNG inside a small SVG against the pixel limit, before anything is decoded", async () => {
    const svg = svgEmbedding(pixelBombPng(10_000, 10_000));
    const rssBefore = process.memoryUsage().rss;
    for (const segment of ["f_png", "w_50"]) {
      const error = await refusal(transform(svg, segment));
      expect(error.code).toBe("IMAGE_TOO_LARGE");
    }
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * 1024 * 1024);
    expect((await refusal(transform(svgEmbedding(pixelBombPng(10_000, 10_000), { xlink: true }), "f_png"))).code).toBe(
      "IMAGE_TOO_LARGE",
    );
  });

  it("counts rasters inside an SVG embedded in an SVG, and refuses nesting past three levels", async () => {
    const inner = svgEmbedding(pixelBombPng(8000, 8000));
    const nested = svgEmbedding(inner, { mime: "image/svg+xml" });
    expect((await refusal(transform(nested, "f_png"))).code).toBe("IMAGE_TOO_LARGE");
    let deep = svgEmbedding(await solid(4, 4, [0, 0, 255]).png().toBuffer());
    for (let level = 0; level < 3; level++) deep = svgEmbedding(deep, { mime: "image/svg+xml" });
    expect((await refusal(transform(deep, "f_png"))).code).toBe("UNSUPPORTED_IMAGE");
  });

  it("sums many embedded rasters", async () => {
    const tile = `data:image/png;base64,${pixelBombPng(3000, 3000).toString("base64")}`;
    const images = Array.from({ length: 6 }, () => `<image href="${tile}" width="10" height="10"/>`).join("");
    const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">${images}</svg>`);
    expect((await refusal(transform(svg, "f_png"))).code).toBe("IMAGE_TOO_LARGE");
  });

  it("refuses entity declarations, which could spell a data: URI only the renderer sees", async () => {
    const svg = Buffer.from(
      `<!DOCTYPE svg [<!ENTITY img "data:image/png;base64,${pixelBombPng(10_000, 10_000).toString("base64")}">]>` +
        `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="&img;" width="10" height="10"/></svg>`,
    );
    expect((await refusal(transform(svg, "f_png"))).code).toBe("UNSUPPORTED_IMAGE");
  });

  it("refuses what the count cannot see: a data: URL spelled with tabs, url(data:…) references, attribute defaults", async () => {
    const bomb = `data:image/png;base64,${pixelBombPng(10_000, 10_000).toString("base64")}`;
    const inner = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg"><defs><pattern id="p" width="10" height="10"><image href="${bomb}" width="10" height="10"/></pattern></defs></svg>`,
    ).toString("base64");
    const wrap = (body: string, doctype = "") =>
      Buffer.from(`${doctype}<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">${body}</svg>`);
    const tabbed = wrap(
      `<image href="da&#9;ta:image/png;base64,${pixelBombPng(10_000, 10_000).toString("base64")}" width="10" height="10"/>`,
    );
    expect((await refusal(transform(tabbed, "f_png"))).code).toBe("IMAGE_TOO_LARGE");
    const smuggled = [
      wrap(`<rect width="10" height="10" fill="url(data:image/svg+xml;base64,${inner}#p)"/>`),
      wrap(`<rect width="10" height="10" style="fill: url( 'data:image/svg+xml;base64,${inner}#p' )"/>`),
      wrap(`<style>rect { fill: url(data:image/svg+xml;base64,${inner}#p) }</style><rect width="10" height="10"/>`),
      wrap(`<rect width="10" height="10" filter="url(data:image/svg+xml;base64,${inner}#f)"/>`),
      wrap(`<image width="10" height="10"/>`, `<!DOCTYPE svg [<!ATTLIST image href CDATA "${bomb}">]>`),
    ];
    for (const [i, svg] of smuggled.entries())
      expect((await refusal(transform(svg, "f_png"))).code, `case ${i}`).toBe("UNSUPPORTED_IMAGE");
    // An embedded image libvips cannot read cannot be counted, so it is refused too.
    const unreadable = wrap(
      `<image href="data:image/bmp;base64,${Buffer.from("BM not really").toString("base64")}" width="10" height="10"/>`,
    );
    expect((await refusal(transform(unreadable, "f_png"))).code).toBe("UNSUPPORTED_IMAGE");
  });

  it("counts nothing for an SVG passed through untouched, and keeps local url(#…) references", async () => {
    const tile = `data:image/png;base64,${(await solid(2, 2, [0, 0, 255]).png().toBuffer()).toString("base64")}`;
    const many = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">${Array.from({ length: 80 }, () => `<image href="${tile}" width="1" height="1"/>`).join("")}</svg>`,
    );
    expect((await transform(many, "_")).format).toBe("svg");
    expect((await refusal(transform(many, "f_png"))).code).toBe("UNSUPPORTED_IMAGE");
    const local = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/></linearGradient></defs><rect width="10" height="10" fill="url(#g)"/></svg>`,
    );
    const { data } = await sharp((await transform(local, "f_png")).body)
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([data[0], data[1], data[2]]).toEqual([255, 0, 0]);
  });

  it("still renders an SVG that embeds a small raster", async () => {
    const svg = svgEmbedding(await solid(20, 20, [255, 0, 0]).png().toBuffer(), { size: 20 });
    const result = await transform(svg, "f_png");
    const { data } = await sharp(result.body).raw().toBuffer({ resolveWithObject: true });
    expect([data[0], data[1], data[2]]).toEqual([255, 0, 0]);
  });
});

describe("output area", () => {
  it("scales an enlarged output down to the area cap, and AVIF to its tighter cap", async () => {
    const small = await solid(64, 48, [0, 128, 0]).png().toBuffer();
    const limits = { maxOutputPixels: 1_000_000, maxAvifPixels: 250_000 };
    const webp = await sharp((await transform(small, "s_8192x8192,fit_fill,enlarge,f_webp", limits)).body).metadata();
    expect(webp.width! * webp.height!).toBeLessThanOrEqual(1_000_000);
    expect(webp.width).toBe(1000);
    const avif = await transform(small, "s_8192x8192,fit_fill,enlarge,f_avif", limits);
    const meta = await sharp(avif.body).metadata();
    expect(avif.format).toBe("avif");
    expect(meta.width! * meta.height!).toBeLessThanOrEqual(250_000);
    expect(meta.width).toBe(500);
  });

  it("negotiates WebP instead of AVIF when the output is over the AVIF cap", async () => {
    const small = await solid(64, 48, [0, 128, 0]).png().toBuffer();
    const limits = { ...DEFAULT_TRANSFORM_LIMITS, maxOutputPixels: 1_000_000, maxAvifPixels: 250_000 };
    const accept = "image/avif,image/webp,*/*";
    const large = await transformImage(small, parseOperations("s_900x900,fit_fill,enlarge,f_auto"), { accept }, limits);
    expect(large.format).toBe("webp");
    expect(large.negotiated).toBe(true);
    const fits = await transformImage(small, parseOperations("s_400x400,fit_fill,enlarge,f_auto"), { accept }, limits);
    expect(fits.format).toBe("avif");
  });
});

describe("undecodable input", () => {
  it("answers 422 for a truncated JPEG", async () => {
    const jpeg = await sharp({
      create: {
        width: 600,
        height: 400,
        channels: 3,
        background: "#000",
        noise: { type: "gaussian", mean: 128, sigma: 30 },
      },
    })
      .jpeg()
      .toBuffer();
    const error = await refusal(transform(jpeg.subarray(0, Math.floor(jpeg.length / 2)), "w_100"));
    expect(error.code).toBe("IMAGE_DECODE_FAILED");
    expect(error.status).toBe(422);
  });

  it("answers 422 for a PNG whose pixel data is garbage", async () => {
    const png = Buffer.concat([
      pixelBombPng(64, 64).subarray(0, 33),
      pngChunk("IDAT", Buffer.from("not zlib at all")),
      pngChunk("IEND", Buffer.alloc(0)),
    ]);
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

  it("is served as SVG without its script and handlers when passed through, drawing the same", async () => {
    const result = await transform(hostile, "_");
    expect(result).toMatchObject({ format: "svg", contentType: "image/svg+xml" });
    expect(result.body.toString()).not.toMatch(/script|onclick/i);
    const pixels = async (file: Buffer) =>
      (await sharp(file).png().raw().toBuffer()).equals(await sharp(hostile).png().raw().toBuffer());
    expect(await pixels(result.body)).toBe(true);
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
    expect(toImageError(new Error("Input image exceeds pixel limit"), "inspect")).toMatchObject({
      code: "IMAGE_TOO_LARGE",
    });
    expect(toImageError(new Error("Processed image is too large for the WebP format"), "transform")).toMatchObject({
      code: "IMAGE_TOO_LARGE",
    });
  });
});
