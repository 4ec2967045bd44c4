import { describe, expect, it } from "vitest";
import { expandPreset } from "@/server/delivery/presets";
import { AppError } from "@/server/errors";
import { parseOperations } from "@/server/image";

const project = { presets: { hero: "s_1200x630,g_attention,f_auto,q_75", frame: "trim,pad_10" }, presetsOnly: false };
const expand = (segment: string, over: Partial<typeof project> = {}) =>
  expandPreset(parseOperations(segment), { ...project, ...over });

describe("expandPreset", () => {
  it("replaces pr_ with the preset's operations; the URL's own tokens win", () => {
    expect(expand("pr_hero")).toEqual({ width: 1200, height: 630, gravity: "attention", format: "auto", quality: 75 });
    expect(expand("pr_hero,q_50,w_600")).toMatchObject({ width: 600, height: 630, quality: 50, format: "auto" });
    expect(expand("w_10")).toEqual({ width: 10 });
  });

  it("cs_srgb in the URL wins over a preset's cs_keep", () => {
    const presets = { ...project.presets, wide: "w_400,cs_keep" };
    expect(expand("pr_wide", { presets })).toEqual({ width: 400, colourSpace: "keep" });
    expect(expand("pr_wide,cs_srgb", { presets })).toEqual({ width: 400, colourSpace: "srgb" });
  });

  it("a caption: the URL's text in the preset's style, and the URL's style over the preset's text", () => {
    const presets = { ...project.presets, price: "w_400,txt_SGk,txtstyle_48_ff0000_north" };
    const red = { size: 48, colour: { r: 255, g: 0, b: 0, alpha: 1 }, gravity: "north" };
    expect(expand("pr_price", { presets })).toEqual({ width: 400, text: "Hi", textStyle: red });
    expect(expand("pr_price,txt_Qnll", { presets })).toEqual({ width: 400, text: "Bye", textStyle: red });
    expect(expand("pr_price,txtstyle_20", { presets })).toEqual({ width: 400, text: "Hi", textStyle: { size: 20 } });
    // A style with no caption, in the URL or once the preset is expanded, says what is missing.
    expect(() => expand("txtstyle_20")).toThrow(/txtstyle_ styles a caption/);
    expect(() => expand("pr_frame,txtstyle_20")).toThrow(/txtstyle_ styles a caption/);
  });

  it("names an unknown preset, and never reads inherited properties as presets", () => {
    for (const name of ["nope", "constructor", "tostring"]) {
      expect(() => expand(`pr_${name}`)).toThrow(
        new AppError("INVALID_OPERATION", { message: `Unknown preset "${name}"` }),
      );
    }
  });

  it("q_auto in the URL wins over a preset's maxbytes_ and a fixed q_, and maxbytes_ over a preset's q_auto", () => {
    const presets = { ...project.presets, small: "w_400,maxbytes_20000", looks: "w_400,q_auto:best" };
    expect(expand("pr_small,q_auto", { presets })).toEqual({ width: 400, qualityTarget: "good" });
    expect(expand("pr_hero,q_auto:eco", { presets })).toMatchObject({ qualityTarget: "eco", quality: undefined });
    expect(expand("pr_looks,maxbytes_9000", { presets })).toEqual({ width: 400, maxBytes: 9000 });
    expect(expand("pr_looks,q_60", { presets })).toMatchObject({ quality: 60, qualityTarget: undefined });
  });

  it("f_best in the URL sets the preset's fixed q_ and maxbytes_ aside; the URL's own q_ with it is refused", () => {
    const presets = { ...project.presets, small: "w_400,maxbytes_20000", smallest: "w_400,f_best" };
    expect(expand("pr_hero,f_best", { presets })).toEqual({
      width: 1200,
      height: 630,
      gravity: "attention",
      format: "best",
    });
    expect(expand("pr_small,f_best", { presets })).toEqual({ width: 400, format: "best" });
    expect(expand("pr_smallest,q_auto:low", { presets })).toMatchObject({ format: "best", qualityTarget: "low" });
    expect(() => expand("pr_smallest,q_60", { presets })).toThrow(/f_best chooses by a perceptual level/);
  });

  it("checks the combination after merging: a preset's trim with the URL's c_ is refused", () => {
    expect(() => expand("pr_frame,c_0_0_10_10")).toThrow(/trim and c_ cannot be combined/);
  });

  it("presets only: one preset token and nothing else", () => {
    const only = { presetsOnly: true };
    expect(expand("pr_hero", only)).toMatchObject({ width: 1200 });
    for (const segment of ["_", "w_10", "pr_hero,f_webp"])
      expect(() => expand(segment, only), segment).toThrow(/accepts a preset only/);
  });
});
