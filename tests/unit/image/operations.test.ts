import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import {
  canonicalOperations,
  KEEP_REDRAWN,
  operationRegistry,
  parseOperations,
  type ImageOperations,
} from "@/server/image";

interface TokenCases {
  /** Segments that parse, with the operations they give. */
  ok: Array<[segment: string, expected: ImageOperations]>;
  /** Segments refused with INVALID_OPERATION. */
  bad: string[];
}

/**
 * One entry per registry token. The last test asserts the keys equal the registry's names, so a token
 * added to the registry without cases here fails the suite.
 */
const cases: Record<string, TokenCases> = {
  w: {
    ok: [
      ["w_1", { width: 1 }],
      ["w_8192", { width: 8192 }],
      ["w_0800", { width: 800 }],
      ["w_auto", { autoWidth: true }],
      ["w_auto_300", { autoWidth: true, width: 300 }],
    ],
    bad: [
      "w_0",
      "w_8193",
      "w",
      "w_",
      "w_-5",
      "w_1e3",
      "w_80.5",
      "w_ 80",
      "w_abc",
      "w_auto_",
      "w_auto_0",
      "w_autox",
      "w_AUTO",
    ],
  },
  h: {
    ok: [
      ["h_1", { height: 1 }],
      ["h_8192", { height: 8192 }],
    ],
    bad: ["h_0", "h_8193", "h", "h_x"],
  },
  s: {
    ok: [
      ["s_1x1", { width: 1, height: 1 }],
      ["s_8192x8192", { width: 8192, height: 8192 }],
      ["s_300x200", { width: 300, height: 200 }],
    ],
    bad: ["s_0x10", "s_10x0", "s_8193x10", "s_10x8193", "s_10", "s_10x", "s_x10", "s_10X10", "s"],
  },
  q: {
    ok: [
      ["q_1", { quality: 1 }],
      ["q_100", { quality: 100 }],
    ],
    bad: ["q_0", "q_101", "q", "q_50.5"],
  },
  f: {
    ok: [
      ["f_webp", { format: "webp" }],
      ["f_avif", { format: "avif" }],
      ["f_png", { format: "png" }],
      ["f_jpg", { format: "jpeg" }],
      ["f_jpeg", { format: "jpeg" }],
      ["f_gif", { format: "gif" }],
      ["f_auto", { format: "auto" }],
    ],
    bad: ["f_bmp", "f_WEBP", "f", "f_", "f_svg"],
  },
  fit: {
    ok: [
      ["fit_cover", { fit: "cover" }],
      ["fit_contain", { fit: "contain" }],
      ["fit_fill", { fit: "fill" }],
      ["fit_inside", { fit: "inside" }],
      ["fit_outside", { fit: "outside" }],
    ],
    bad: ["fit_crop", "fit", "fit_"],
  },
  embed: { ok: [["embed", { embed: true }]], bad: ["embed_true", "embed_"] },
  dpr: {
    ok: [
      ["dpr_1", {}],
      ["dpr_1.5", { dpr: 1.5 }],
      ["dpr_4", { dpr: 4 }],
      ["dpr_auto", { autoDpr: true }],
    ],
    bad: ["dpr_0", "dpr_0.9", "dpr_4.01", "dpr_5", "dpr", "dpr_2x", "dpr_auto_2"],
  },
  g: {
    ok: [
      ["g_north", { gravity: "north" }],
      ["g_northeast", { gravity: "northeast" }],
      ["g_east", { gravity: "east" }],
      ["g_southeast", { gravity: "southeast" }],
      ["g_south", { gravity: "south" }],
      ["g_southwest", { gravity: "southwest" }],
      ["g_west", { gravity: "west" }],
      ["g_northwest", { gravity: "northwest" }],
      ["g_center", { gravity: "center" }],
      ["g_centre", { gravity: "center" }],
      ["g_attention", { gravity: "attention" }],
      ["g_entropy", { gravity: "entropy" }],
      ["g_face", { gravity: "face" }],
      ["g_auto", { gravity: "auto" }],
    ],
    bad: ["g_top", "g", "g_", "g_faces"],
  },
  fp: {
    ok: [
      ["fp_0_0", { focus: { x: 0, y: 0 } }],
      ["fp_1_1", { focus: { x: 1, y: 1 } }],
      ["fp_0.333_0.25", { focus: { x: 0.333, y: 0.25 } }],
    ],
    bad: ["fp", "fp_", "fp_0.5", "fp_1.01_0", "fp_0_-1", "fp_0.5_0.5_0", "fp_x_y", "fp_0.1234_0"],
  },
  c: {
    ok: [
      ["c_0_0_1_1", { crop: { left: 0, top: 0, width: 1, height: 1 } }],
      ["c_10_20_300_200", { crop: { left: 10, top: 20, width: 300, height: 200 } }],
      ["c_65535_65535_65535_65535", { crop: { left: 65535, top: 65535, width: 65535, height: 65535 } }],
    ],
    bad: ["c_0_0_0_10", "c_0_0_10_0", "c_65536_0_1_1", "c_0_0_10", "c_0_0_10_10_10", "c", "c_a_b_c_d", "c_0_0_10x10"],
  },
  enlarge: { ok: [["enlarge", { enlarge: true }]], bad: ["enlarge_1"] },
  maxbytes: {
    ok: [
      ["maxbytes_1024", { maxBytes: 1024 }],
      ["maxbytes_50000", { maxBytes: 50000 }],
      ["maxbytes_10485760", { maxBytes: 10485760 }],
    ],
    bad: ["maxbytes", "maxbytes_1023", "maxbytes_10485761", "maxbytes_5e4", "maxbytes_1.5"],
  },
  pixelate: {
    ok: [
      ["pixelate_2", { pixelate: 2 }],
      ["pixelate_256", { pixelate: 256 }],
    ],
    bad: ["pixelate", "pixelate_1", "pixelate_257", "pixelate_2.5"],
  },
  trim: {
    ok: [
      ["trim", { trim: 10 }],
      ["trim_0", { trim: 0 }],
      ["trim_255", { trim: 255 }],
    ],
    bad: ["trim_", "trim_256", "trim_-1", "trim_2.5", "trim_x"],
  },
  wm: {
    ok: [
      ["wm", { watermark: {} }],
      ["wm_0.5", { watermark: { opacity: 0.5 } }],
      ["wm_1_centre", { watermark: { opacity: 1, gravity: "center" } }],
      ["wm_0.05_southeast_10_1000", { watermark: { opacity: 0.05, gravity: "southeast", x: 10, y: 1000 } }],
      ["wm_1_north_0_0_0", { watermark: { opacity: 1, gravity: "north", x: 0, y: 0, scale: 0 } }],
      ["wm_1_north_0_0_0.25", { watermark: { opacity: 1, gravity: "north", x: 0, y: 0, scale: 0.25 } }],
    ],
    bad: [
      "wm_",
      "wm_0",
      "wm_0.04",
      "wm_1.5",
      "wm_1_attention",
      "wm_1_north_5",
      "wm_1_north_1001_0",
      "wm_1_north_0_0_0.01",
      "wm_1_north_0_0_2",
      "wm_1_north_0_0_1_1",
      "wm_x",
    ],
  },
  txt: {
    ok: [
      ["txt_SGk", { text: "Hi" }],
      // `€ 12,99/kg`: a comma and a slash, which the segment could not carry as they are.
      ["txt_4oKsIDEyLDk5L2tn", { text: "€ 12,99/kg" }],
      ["txt_16nXnNeV150", { text: "שלום" }],
      ["txt_ZcyB", { text: "e\u0301" }],
      ["txt_YQpi", { text: "a\nb" }],
      // Markup is text like any other: the engine draws it as typed (caption.test.ts).
      ["txt_PGI-JmFtcDs8L2I-", { text: "<b>&amp;</b>" }],
      [`txt_${Buffer.from("🙂".repeat(200)).toString("base64url")}`, { text: "🙂".repeat(200) }],
    ],
    bad: [
      "txt",
      "txt_",
      "txt_SGk=", // padding: one spelling per caption
      "txt_SGl", // decodes to "Hi" too, but is not how "Hi" encodes
      "txt_SG+k",
      "txt_S/k",
      "txt__w", // 0xff: not UTF-8
      "txt_YQli", // a tab
      "txt_YQBi", // NUL
      "txt_ICAg", // blank
      "txt_4oCL", // a zero-width space: nothing to see
    ],
  },
  txtstyle: {
    ok: [
      ["txt_SGk,txtstyle_48", { text: "Hi", textStyle: { size: 48 } }],
      [
        "txt_SGk,txtstyle_8_ff000080_centre_0_1000_mono_00000099",
        {
          text: "Hi",
          textStyle: {
            size: 8,
            colour: { r: 255, g: 0, b: 0, alpha: 0.502 },
            gravity: "center",
            x: 0,
            y: 1000,
            font: "mono",
            box: { r: 0, g: 0, b: 0, alpha: 0.6 },
          },
        },
      ],
      [
        "txt_SGk,txtstyle_256_ffffff_north",
        { text: "Hi", textStyle: { size: 256, colour: { r: 255, g: 255, b: 255, alpha: 1 }, gravity: "north" } },
      ],
    ],
    bad: [
      "txtstyle",
      "txtstyle_7",
      "txtstyle_257",
      "txtstyle_32_red",
      "txtstyle_32_ffffff_attention",
      "txtstyle_32_ffffff_north_5",
      "txtstyle_32_ffffff_north_5_1001",
      "txtstyle_32_ffffff_north_5_5_comic",
      "txtstyle_32_ffffff_north_5_5_sans_00",
      "txtstyle_32_ffffff_north_5_5_sans_000000_1",
    ],
  },
  pad: {
    ok: [
      ["pad_10", { padding: { top: 10, right: 10, bottom: 10, left: 10 } }],
      ["pad_1_2_3_4", { padding: { top: 1, right: 2, bottom: 3, left: 4 } }],
      ["pad_0_256_0_0", { padding: { top: 0, right: 256, bottom: 0, left: 0 } }],
      ["pad_0", {}],
      ["pad_0_0_0_0", {}],
    ],
    bad: ["pad", "pad_", "pad_257", "pad_1_2", "pad_1_2_3", "pad_1_2_3_4_5", "pad_-1", "pad_1.5", "pad_1__3_4"],
  },
  bg: {
    ok: [
      ["bg_ff0000", { background: { r: 255, g: 0, b: 0, alpha: 1 } }],
      ["bg_00FF0080", { background: { r: 0, g: 255, b: 0, alpha: 0.502 } }],
      ["bg_00000000", { background: { r: 0, g: 0, b: 0, alpha: 0 } }],
    ],
    bad: ["bg_fff", "bg_gggggg", "bg_#ffffff", "bg", "bg_ff00000"],
  },
  anim: {
    ok: [
      ["anim_false", { animated: false }],
      ["anim_true", {}],
    ],
    bad: ["anim", "anim_0", "anim_no"],
  },
  meta: {
    ok: [
      ["meta_keep", { metadata: "keep" }],
      ["meta_strip", { metadata: "strip" }],
    ],
    bad: ["meta", "meta_all", "meta_KEEP", "meta_keep_all"],
  },
  cs: {
    ok: [
      ["cs_keep", { colourSpace: "keep" }],
      // Kept, not dropped as the default: it overrides a preset's cs_keep.
      ["cs_srgb", { colourSpace: "srgb" }],
    ],
    bad: ["cs", "cs_p3", "cs_KEEP", "cs_keep_all"],
  },
  pr: {
    ok: [
      ["pr_hero", { preset: "hero" }],
      ["pr_og-1200", { preset: "og-1200" }],
      ["pr_9", { preset: "9" }],
    ],
    bad: ["pr", "pr_", "pr_Hero", "pr_-x", "pr_a_b", `pr_${"a".repeat(33)}`, "pr_a.b"],
  },
  info: { ok: [["info", { info: true }]], bad: ["info_1", "info_"] },
  placeholder: { ok: [["placeholder", { placeholder: true }]], bad: ["placeholder_1"] },
  r: {
    ok: [
      ["r_0", {}],
      ["r_90", { rotate: 90 }],
      ["r_180", { rotate: 180 }],
      ["r_270", { rotate: 270 }],
    ],
    bad: ["r_45", "r_360", "r_-90", "r"],
  },
  flip: { ok: [["flip", { flip: true }]], bad: ["flip_true"] },
  flop: { ok: [["flop", { flop: true }]], bad: ["flop_1"] },
  blur: {
    ok: [
      ["blur_0.3", { blur: 0.3 }],
      ["blur_100", { blur: 100 }],
      ["blur_5", { blur: 5 }],
    ],
    bad: ["blur_0.2", "blur_100.1", "blur", "blur_-1"],
  },
  sharpen: {
    ok: [
      ["sharpen", { sharpen: 1 }],
      ["sharpen_0.5", { sharpen: 0.5 }],
      ["sharpen_10", { sharpen: 10 }],
    ],
    bad: ["sharpen_0.4", "sharpen_10.5", "sharpen_"],
  },
  grayscale: { ok: [["grayscale", { grayscale: true }]], bad: ["grayscale_1"] },
  brightness: {
    ok: [
      ["brightness_0", { brightness: 0 }],
      ["brightness_1", {}],
      ["brightness_1.5", { brightness: 1.5 }],
      ["brightness_10", { brightness: 10 }],
    ],
    bad: ["brightness", "brightness_10.1", "brightness_-1", "brightness_1e1"],
  },
  saturation: {
    ok: [
      ["saturation_0", { saturation: 0 }],
      ["saturation_1", {}],
      ["saturation_2.25", { saturation: 2.25 }],
    ],
    bad: ["saturation", "saturation_11", "saturation_x"],
  },
  hue: {
    ok: [
      ["hue_0", {}],
      ["hue_180", { hue: 180 }],
      ["hue_359", { hue: 359 }],
    ],
    bad: ["hue", "hue_360", "hue_-30", "hue_90.5"],
  },
};

function refusal(segment: string): AppError {
  try {
    parseOperations(segment);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`expected ${segment} to be refused`);
}

describe("operations registry", () => {
  for (const [name, { ok, bad }] of Object.entries(cases)) {
    describe(name, () => {
      it.each(ok)("parses %s", (segment, expected) => {
        expect(parseOperations(segment)).toEqual(expected);
      });
      it.each(bad)("refuses %s with INVALID_OPERATION naming it", (segment) => {
        const error = refusal(segment);
        expect(error.code).toBe("INVALID_OPERATION");
        expect(error.status).toBe(400);
        expect(error.publicMessage).toContain(`"${segment}"`);
      });
    });
  }

  it("has test cases for exactly the registry's tokens", () => {
    expect(Object.keys(cases).sort()).toEqual(operationRegistry.map((spec) => spec.name).sort());
  });

  it("has unique names, and documents every token", () => {
    const names = operationRegistry.map((spec) => spec.name);
    expect(new Set(names).size).toBe(names.length);
    for (const spec of operationRegistry) {
      expect(spec.syntax.startsWith(spec.name)).toBe(true);
      expect(spec.description.length).toBeGreaterThan(10);
    }
  });
});

describe("parseOperations", () => {
  it("reads _ as no operations", () => {
    expect(parseOperations("_")).toEqual({});
  });

  it("combines tokens", () => {
    expect(parseOperations("w_800,h_400,fit_contain,f_webp,q_70")).toEqual({
      width: 800,
      height: 400,
      fit: "contain",
      format: "webp",
      quality: 70,
    });
  });

  it("takes info with other operations (it then describes their output too), but not with placeholder", () => {
    expect(parseOperations("info,w_100,f_best")).toEqual({ info: true, width: 100, format: "best" });
    const error = refusal("w_20,placeholder,info");
    expect(error.code).toBe("INVALID_OPERATION");
    expect(error.message).toMatch(/info and placeholder cannot be combined/);
  });

  it("refuses trim with c_ in either order, saying why", () => {
    for (const segment of ["trim,c_0_0_10_10", "c_0_0_10_10,trim_5"]) {
      const error = refusal(segment);
      expect(error.code).toBe("INVALID_OPERATION");
      expect(error.message).toMatch(/trim and c_ cannot be combined/);
    }
  });

  it("refuses f_best with a fixed quality or a byte target, and takes a q_auto level", () => {
    for (const segment of ["f_best,q_80", "q_80,f_best", "f_best,maxbytes_20000"]) {
      const error = refusal(segment);
      expect(error.code).toBe("INVALID_OPERATION");
      expect(error.message).toMatch(/f_best chooses by a perceptual level/);
    }
    expect(parseOperations("f_best,q_auto:eco")).toEqual({ format: "best", qualityTarget: "eco", quality: undefined });
    expect(parseOperations("w_10,f_best")).toEqual({ width: 10, format: "best" });
  });

  it("names an unknown token in a 400", () => {
    const error = refusal("w_800,foo_bar");
    expect(error.code).toBe("UNKNOWN_OPERATION");
    expect(error.status).toBe(400);
    expect(error.publicMessage).toContain('"foo_bar"');
  });

  it("is case-sensitive about names", () => {
    expect(refusal("W_800").code).toBe("UNKNOWN_OPERATION");
  });

  it("does not echo an unbounded token", () => {
    const error = refusal(`x${"a".repeat(5000)}`);
    expect(error.publicMessage.length).toBeLessThan(200);
  });

  it("lets the last repeated token win, field by field", () => {
    expect(parseOperations("w_100,w_200")).toEqual({ width: 200 });
    expect(parseOperations("s_300x200,w_100")).toEqual({ width: 100, height: 200 });
    expect(parseOperations("f_webp,f_auto")).toEqual({ format: "auto" });
    expect(parseOperations("r_90,r_0")).toEqual({});
    expect(parseOperations("anim_false,anim_true")).toEqual({});
  });

  it("refuses empty tokens and an empty segment", () => {
    expect(refusal("w_1,,h_2").code).toBe("INVALID_OPERATION");
    expect(refusal("w_1,").code).toBe("INVALID_OPERATION");
    expect(refusal(",w_1").code).toBe("INVALID_OPERATION");
    expect(refusal("").code).toBe("BAD_REQUEST");
  });

  it("treats _ inside a list as an unknown token", () => {
    expect(refusal("_,w_100").code).toBe("UNKNOWN_OPERATION");
  });

  it("refuses absurdly many tokens", () => {
    expect(refusal(Array.from({ length: 65 }, () => "flip").join(",")).code).toBe("INVALID_OPERATION");
  });
});

describe("txt_ and txtstyle_", () => {
  const encoded = (text: string) => `txt_${Buffer.from(text).toString("base64url")}`;

  it("bounds the caption by characters, not bytes, and refuses a value too long to decode", () => {
    expect(parseOperations(encoded("x".repeat(200))).text).toHaveLength(200);
    for (const segment of [encoded("x".repeat(201)), `txt_${"A".repeat(1068)}`]) {
      expect(refusal(segment).publicMessage).toMatch(/^Invalid operation "txt_[A-Za-z0-9_-]{60}…": expected txt_/);
    }
  });

  it("refuses a style with no caption to style, and a caption on a placeholder, saying why", () => {
    expect(refusal("txtstyle_32").publicMessage).toBe("txtstyle_ styles a caption: add txt_ with the text");
    expect(refusal("txt_SGk,placeholder").publicMessage).toMatch(/^txt_ and placeholder cannot be combined/);
    expect(refusal("txt_SGk,meta_keep").publicMessage).toBe(KEEP_REDRAWN);
    expect(refusal("cs_keep,txt_SGk").publicMessage).toBe(KEEP_REDRAWN);
  });

  it("gives a caption in the default style and the same caption with the defaults spelled out one variant", () => {
    const plain = canonicalOperations(parseOperations("txt_SGk"));
    expect(canonicalOperations(parseOperations("txt_SGk,txtstyle_32_ffffff_southeast_16_16_sans"))).toBe(plain);
    expect(canonicalOperations(parseOperations("txtstyle_32,txt_SGk"))).toBe(plain);
    expect(canonicalOperations(parseOperations("txt_SGk,txtstyle_33"))).not.toBe(plain);
    expect(canonicalOperations(parseOperations("txt_SGk,txtstyle_32_ffffff_southeast_16_16_sans_000000"))).not.toBe(
      plain,
    );
  });
});

describe("canonicalOperations", () => {
  const canonical = (segment: string) => canonicalOperations(parseOperations(segment));

  it("ignores token order", () => {
    expect(canonical("w_800,f_webp")).toBe(canonical("f_webp,w_800"));
    expect(canonical("bg_ff0000,c_1_2_3_4,g_north,blur_2")).toBe(canonical("blur_2,g_north,c_1_2_3_4,bg_FF0000"));
  });

  it("equates spellings with the same effect", () => {
    expect(canonical("s_800x400")).toBe(canonical("h_400,w_800"));
    expect(canonical("f_jpg")).toBe(canonical("f_jpeg"));
    expect(canonical("sharpen")).toBe(canonical("sharpen_1"));
    expect(canonical("g_centre")).toBe(canonical("g_center"));
    expect(canonical("_")).toBe(canonical("r_0,dpr_1,anim_true"));
  });

  it("tells different operations apart", () => {
    expect(canonical("w_800")).not.toBe(canonical("h_800"));
    expect(canonical("w_800,f_webp")).not.toBe(canonical("w_800,f_avif"));
    expect(canonical("c_1_2_3_4")).not.toBe(canonical("c_2_1_3_4"));
  });

  it("sorts nested keys too", () => {
    const a = canonicalOperations({ crop: { width: 3, left: 1, top: 2, height: 4 } });
    const b = canonicalOperations({ crop: { left: 1, top: 2, width: 3, height: 4 } });
    expect(a).toBe(b);
  });
});
