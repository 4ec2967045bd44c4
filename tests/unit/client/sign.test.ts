import { describe, expect, it } from "vitest";
import { bucketedExpiry, buildOperations, signature, signUrl } from "../../../packages/client/src/index";
import { sign } from "@/server/signing";
import { parseOperations } from "@/server/image";
import { SIGNING_VECTORS, VECTOR_KEYS, VECTOR_SECRET } from "../../support/vectors";
import { buildSignedUrl } from "../../support/signed-url";

const SECRET = VECTOR_SECRET;
const vectors = SIGNING_VECTORS.map((v) => [v.operations, v.source, v.exp, v.signature] as const);
const keys = VECTOR_KEYS;

describe("client kit: signatures", () => {
  it.each(vectors)("signs %s/%s (exp %s) as the contract says", async (operations, source, exp, expected) => {
    expect(await signature(SECRET, operations, source, exp)).toBe(expected);
  });

  it("builds the same URL as the server's own builder, byte for byte", async () => {
    for (const [operations, source, exp] of vectors) {
      const fromKit = await signUrl({
        ...keys,
        operations,
        source,
        ...(exp ? { expiresIn: 60, expiryBucket: 1, now: (exp - 60) * 1000 } : {}),
      });
      expect(fromKit).toBe(buildSignedUrl({ ...keys, operations, source, exp }));
    }
  });

  it("signs what the builder produces", async () => {
    const url = new URL(
      await signUrl({
        ...keys,
        operations: { width: 640, format: "avif", quality: 60 },
        source: "cdn.example.com/a.jpg",
      }),
    );
    expect(url.pathname).toBe("/api/v1/shop/w_640%2Cq_60%2Cf_avif/cdn.example.com/a.jpg");
    expect(url.searchParams.get("sig")).toBe(sign(SECRET, "w_640,q_60,f_avif/cdn.example.com/a.jpg"));
  });

  it("refuses an empty source, a slash in the operations and a non-positive lifetime", async () => {
    await expect(signUrl({ ...keys, operations: "w_1", source: "" })).rejects.toThrow(RangeError);
    // Contract §2: without exp, a source ending in ?exp=N is what the server refuses.
    await expect(signUrl({ ...keys, operations: "w_1", source: "cdn.example.com/a.jpg?exp=1" })).rejects.toThrow(
      /expiresIn/,
    );
    expect(
      await signUrl({ ...keys, operations: "w_1", source: "cdn.example.com/a.jpg?exp=1", expiresIn: 60 }),
    ).toContain("exp=");
    await expect(signUrl({ ...keys, operations: "w_1/x", source: "a.com/b.jpg" })).rejects.toThrow(/one path segment/);
    await expect(signUrl({ ...keys, source: "a.com/b.jpg", expiresIn: 0 })).rejects.toThrow(/expiresIn/);
  });
});

describe("client kit: expiry buckets", () => {
  it("gives one URL for a whole bucket and never less life than asked", async () => {
    const start = Date.UTC(2026, 10, 21, 12, 0, 0);
    const urls = new Set<string>();
    for (let offset = 0; offset < 3600_000; offset += 7_919) {
      const now = start + offset;
      const exp = bucketedExpiry(now, 3600);
      expect(exp * 1000 - now).toBeGreaterThanOrEqual(3600_000);
      expect(exp * 1000 - now).toBeLessThanOrEqual(2 * 3600_000);
      urls.add(await signUrl({ ...keys, source: "a.com/b.jpg", expiresIn: 3600, now }));
    }
    // An hour of signing with an hour's bucket spans at most two buckets.
    expect(urls.size).toBeLessThanOrEqual(2);
    expect(bucketedExpiry(start, 3600)).toBe(start / 1000 + 3600);
    expect(bucketedExpiry(start + 1, 3600)).toBe(start / 1000 + 7200);
  });

  it("caps the default bucket at a day and honours a chosen one", () => {
    const now = Date.UTC(2026, 0, 1, 0, 0, 1);
    expect(bucketedExpiry(now, 30 * 86_400) % 86_400).toBe(0);
    expect(bucketedExpiry(now, 600, 60) % 60).toBe(0);
    expect(() => bucketedExpiry(now, 600, 0.5)).toThrow(/expiryBucket/);
  });
});

describe("client kit: operations builder against the server's parser", () => {
  const cases: Array<[Parameters<typeof buildOperations>[0], string]> = [
    [{}, "_"],
    [{ width: 800, format: "webp" }, "w_800,f_webp"],
    [
      { width: 1, height: 8192, fit: "inside", embed: true, dpr: 2.5, gravity: "attention", enlarge: true },
      "w_1,h_8192,fit_inside,embed,dpr_2.5,g_attention,enlarge",
    ],
    [
      { crop: { left: 0, top: 10, width: 65535, height: 1 }, quality: 100, background: "#FFAA0080", animated: false },
      "c_0_10_65535_1,q_100,bg_ffaa0080,anim_false",
    ],
    [
      { placeholder: true, rotate: 270, flip: true, flop: true, blur: 0.3, sharpen: 10, grayscale: true },
      "placeholder,r_270,flip,flop,blur_0.3,sharpen_10,grayscale",
    ],
    [{ sharpen: true, embed: false, format: "jpeg" }, "f_jpeg,sharpen"],
    [{ brightness: 1.25, saturation: 0, hue: 359 }, "brightness_1.25,saturation_0,hue_359"],
    [{ width: 100, padding: 12 }, "w_100,pad_12"],
    [{ trim: true, width: 50 }, "w_50,trim"],
    [{ trim: 40 }, "trim_40"],
    [{ width: 100, metadata: "keep" }, "w_100,meta_keep"],
    [{ metadata: "strip" }, "meta_strip"],
    [{ width: 100, colourSpace: "keep" }, "w_100,cs_keep"],
    [{ width: 64, pixelate: 8 }, "w_64,pixelate_8"],
    [{ info: true }, "info"],
    [{ info: true, width: 200, format: "best" }, "w_200,f_best,info"],
    [{ width: 800, quality: "auto", format: "auto" }, "w_800,q_auto,f_auto"],
    [{ quality: { auto: "eco" }, format: "best" }, "q_auto:eco,f_best"],
    [{ preset: "hero", format: "webp" }, "f_webp,pr_hero"],
    [{ width: "auto", dpr: "auto" }, "w_auto,dpr_auto"],
    [{ width: { auto: true, fallback: 640 }, height: 300 }, "w_auto_640,h_300"],
    [{ width: 800, quality: 70, maxBytes: 60000, format: "auto" }, "w_800,q_70,maxbytes_60000,f_auto"],
    [{ padding: { top: 0, right: 256, bottom: 3, left: 4 }, format: "png" }, "pad_0_256_3_4,f_png"],
    [{ width: 300, watermark: true }, "w_300,wm"],
    [{ watermark: { opacity: 0.5 } }, "wm_0.5"],
    [
      { watermark: { opacity: 1, gravity: "northwest", offset: { x: 8, y: 1000 }, scale: 0.25 } },
      "wm_1_northwest_8_1000_0.25",
    ],
    [{ watermark: { opacity: 0.05, gravity: "center", offset: { x: 0, y: 0 }, scale: 0 } }, "wm_0.05_center_0_0_0"],
    [{ width: 400, height: 400, gravity: "face" }, "w_400,h_400,g_face"],
    [{ width: 400, height: 400, gravity: "auto" }, "w_400,h_400,g_auto"],
    [{ width: 400, height: 400, focus: { x: 0.25, y: 0.125 } }, "w_400,h_400,fp_0.25_0.125"],
    [{ text: "€ 12,99/kg" }, "txt_4oKsIDEyLDk5L2tn"],
    [{ text: { text: "Hi", size: 48 } }, "txt_SGk,txtstyle_48"],
    // A later value writes the defaults before it: the server reads them in order.
    [{ text: { text: "Hi", font: "serif" } }, "txt_SGk,txtstyle_32_ffffff_southeast_16_16_serif"],
    [
      { text: { text: "שלום\n", colour: "#FF0000", gravity: "south", offset: { x: 0, y: 8 }, box: "00000099" } },
      "txt_16nXnNeV150K,txtstyle_32_ff0000_south_0_8_sans_00000099",
    ],
  ];

  it.each(cases)("builds %j as %s, which the server accepts", (options, expected) => {
    const built = buildOperations(options);
    expect(built).toBe(expected);
    expect(() => parseOperations(built)).not.toThrow();
  });

  it("covers every operation of the server's registry", async () => {
    const { operationRegistry } = await import("@/server/image/operations/registry");
    const written = new Set(cases.flatMap(([, ops]) => ops.split(",").map((token) => token.split("_")[0])));
    // s_WxH is shorthand for w_W,h_H: the builder writes the long form.
    expect(operationRegistry.map((spec) => spec.name).filter((name) => !written.has(name))).toEqual(["s"]);
  });

  const refused: Array<[Parameters<typeof buildOperations>[0], string]> = [
    [{ width: 0 }, "w_0"],
    [{ width: 8193 }, "w_8193"],
    [{ height: 1.5 }, "h_1.5"],
    [{ dpr: 4.5 }, "dpr_4.5"],
    [{ dpr: 1.0001 }, "dpr_1.0001"],
    [{ quality: 101 }, "q_101"],
    [{ quality: { auto: "great" as "good" } }, "q_auto:great"],
    [{ blur: 0.2 }, "blur_0.2"],
    [{ sharpen: 11 }, "sharpen_11"],
    [{ crop: { left: -1, top: 0, width: 1, height: 1 } }, "c_-1_0_1_1"],
    [{ crop: { left: 0, top: 0, width: 0, height: 1 } }, "c_0_0_0_1"],
    [{ background: "red" }, "bg_red"],
    [{ gravity: "middle" as "center" }, "g_middle"],
    [{ focus: { x: 1.5, y: 0 } }, "fp_1.5_0"],
    [{ focus: { x: 0.1234, y: 0 } }, "fp_0.1234_0"],
    [{ rotate: 45 as 90 }, "r_45"],
    [{ format: "bmp" as "png" }, "f_bmp"],
    [{ metadata: "all" as "keep" }, "meta_all"],
    [{ colourSpace: "p3" as "keep" }, "cs_p3"],
    [{ brightness: 10.5 }, "brightness_10.5"],
    [{ saturation: -1 }, "saturation_-1"],
    [{ hue: 360 }, "hue_360"],
    [{ padding: 257 }, "pad_257"],
    [{ trim: 256 }, "trim_256"],
    [{ pixelate: 1 }, "pixelate_1"],
    [{ preset: "Hero" }, "pr_Hero"],
    [{ width: { auto: true, fallback: 0 } }, "w_auto_0"],
    [{ width: "full" as "auto" }, "w_full"],
    [{ maxBytes: 1000 }, "maxbytes_1000"],
    [{ padding: { top: 1, right: 2, bottom: -3, left: 4 } }, "pad_1_2_-3_4"],
    [{ hue: 12.5 }, "hue_12.5"],
    [{ watermark: { opacity: 0 } }, "wm_0"],
    [{ text: "" }, "txt_"],
    [{ text: "x".repeat(201) }, `txt_${Buffer.from("x".repeat(201)).toString("base64url")}`],
    [{ text: "a\tb" }, "txt_YQli"],
    [{ text: "  " }, "txt_ICA"],
    [{ text: { text: "Hi", size: 7 } }, "txtstyle_7"],
    [{ text: { text: "Hi", colour: "red" } }, "txtstyle_32_red"],
    [{ text: { text: "Hi", font: "comic" as "sans" } }, "txtstyle_32_ffffff_southeast_16_16_comic"],
    [{ watermark: { opacity: 1, gravity: "attention" as "center" } }, "wm_1_attention"],
    [{ watermark: { opacity: 1, gravity: "east", offset: { x: 1001, y: 0 } } }, "wm_1_east_1001_0"],
    [{ watermark: { opacity: 1, gravity: "east", offset: { x: 0, y: 0 }, scale: 0.01 } }, "wm_1_east_0_0_0.01"],
  ];

  it.each(refused)("refuses %j, as the server refuses %s", (options, token) => {
    expect(() => buildOperations(options)).toThrow(RangeError);
    expect(() => parseOperations(token)).toThrow();
  });

  it("refuses gravity and focus together: both choose what a crop keeps, and the server keeps the later", () => {
    expect(() => buildOperations({ gravity: "face", focus: { x: 0.5, y: 0.5 } })).toThrow(/give one/);
  });

  it("refuses watermark values that skip a position (the server reads them in order)", () => {
    expect(() => buildOperations({ watermark: { opacity: 1, scale: 0.5 } })).toThrow(/need watermark.gravity/);
    expect(() => buildOperations({ watermark: { opacity: 1, gravity: "east", scale: 0.5 } })).toThrow(
      /needs watermark.offset/,
    );
    expect(buildOperations({ watermark: false })).toBe("_");
  });

  it("refuses an unknown option rather than dropping it", () => {
    expect(() => buildOperations({ widht: 800 } as never)).toThrow(/unknown operation option widht/);
  });
});
