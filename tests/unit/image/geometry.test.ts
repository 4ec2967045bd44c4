import { describe, expect, it } from "vitest";
import { orientGravity, orientRegion, type Orientation } from "@/server/image/orientation";
import { planGeometry, predictSize } from "@/server/image/plan-geometry";
import { parseOperations } from "@/server/image";

const none: Orientation = { rotate: 0, flip: false, flop: false };
const source = { width: 3000, height: 2000 };
const plan = (segment: string, extra: Partial<Parameters<typeof planGeometry>[0]> = {}) =>
  planGeometry({ source, ops: parseOperations(segment), maxOutputDimension: 8192, keepFrames: false, ...extra });

describe("orientation helpers", () => {
  it("moves compass gravities through flips and rotations", () => {
    expect(orientGravity("north", { ...none, flip: true })).toBe("south");
    expect(orientGravity("northeast", { ...none, flop: true })).toBe("northwest");
    expect(orientGravity("north", { ...none, rotate: 90 })).toBe("east");
    expect(orientGravity("northeast", { ...none, rotate: 180 })).toBe("southwest");
    expect(orientGravity("west", { ...none, rotate: 270 })).toBe("south");
    expect(orientGravity("center", { rotate: 90, flip: true, flop: true })).toBe("center");
    expect(orientGravity("attention", { ...none, rotate: 90 })).toBe("attention");
  });

  it("moves regions through flips and rotations", () => {
    const size = { width: 100, height: 50 };
    const region = { left: 10, top: 5, width: 20, height: 10 };
    expect(orientRegion(region, size, none)).toEqual(region);
    expect(orientRegion(region, size, { ...none, flop: true })).toEqual({ left: 70, top: 5, width: 20, height: 10 });
    expect(orientRegion(region, size, { ...none, flip: true })).toEqual({ left: 10, top: 35, width: 20, height: 10 });
    expect(orientRegion(region, size, { ...none, rotate: 90 })).toEqual({ left: 35, top: 10, width: 10, height: 20 });
    expect(orientRegion(region, size, { ...none, rotate: 180 })).toEqual({ left: 70, top: 35, width: 20, height: 10 });
    expect(orientRegion(region, size, { ...none, rotate: 270 })).toEqual({ left: 5, top: 70, width: 10, height: 20 });
  });
});

describe("planGeometry", () => {
  it("passes a plain resize through", () => {
    expect(plan("w_800").resize).toEqual({ width: 800, height: undefined, fit: "cover", withoutEnlargement: true });
    expect(plan("w_800,h_400,fit_fill,enlarge").resize).toMatchObject({ fit: "fill", withoutEnlargement: false });
  });

  it("makes embed a contain, whatever fit says", () => {
    expect(plan("embed,s_300x200,fit_cover").resize).toMatchObject({ width: 300, height: 200, fit: "contain" });
  });

  it("multiplies by dpr and caps the box as a whole", () => {
    expect(plan("w_400,h_300,dpr_2").resize).toMatchObject({ width: 800, height: 600 });
    expect(plan("w_6000,h_3000,dpr_2").resize).toMatchObject({ width: 8192, height: 4096 });
    expect(plan("w_400,dpr_2", { maxOutputDimension: 500 }).resize).toMatchObject({ width: 500 });
  });

  it("caps outputs that would exceed the maximum dimension", () => {
    const capped = { width: 1000, height: 1000, fit: "inside", withoutEnlargement: true };
    expect(plan("_", { maxOutputDimension: 1000 }).resize).toEqual(capped);
    expect(plan("h_900,enlarge", { maxOutputDimension: 1000 }).resize).toEqual(capped);
    expect(plan("s_1000x900,fit_outside", { maxOutputDimension: 1000 }).resize).toEqual(capped);
    expect(plan("s_1000x500", { maxOutputDimension: 1000 }).resize).toMatchObject({
      width: 1000,
      height: 500,
      fit: "cover",
    });
  });

  it("scales outputs over the area cap down as a whole, keeping fit and shape", () => {
    const area = (p: ReturnType<typeof plan>) => p.outputPixels;
    const big = plan("s_8192x8192,fit_fill,enlarge", { maxOutputPixels: 4_000_000 });
    expect(big.resize).toMatchObject({ width: 2000, height: 2000, fit: "fill" });
    expect(area(big)).toBeLessThanOrEqual(4_000_000);
    // One side given and no enlargement: scaled from the size sharp would really produce (3000×2000).
    const wide = plan("w_8000", { maxOutputPixels: 1_500_000 });
    expect(wide.resize).toMatchObject({ width: 1500 });
    expect(area(wide)).toBe(1500 * 1000);
    // No resize asked: the source is fitted inside.
    expect(plan("_", { maxOutputPixels: 600_000 }).resize).toMatchObject({ width: 948, height: 632, fit: "inside" });
    expect(plan("s_1000x900,fit_outside,enlarge", { maxOutputPixels: 1_000_000 }).outputPixels).toBeLessThanOrEqual(
      1_000_000,
    );
    // Under the cap nothing changes.
    expect(plan("w_800", { maxOutputPixels: 4_000_000 })).toEqual(plan("w_800"));
  });

  it("predicts sizes for the fits that can exceed the box", () => {
    expect(predictSize(source, { width: 300, fit: "cover", withoutEnlargement: true })).toEqual({
      width: 300,
      height: 200,
    });
    expect(predictSize(source, { width: 6000, fit: "cover", withoutEnlargement: true })).toEqual(source);
    expect(predictSize(source, { width: 300, height: 300, fit: "outside", withoutEnlargement: true })).toEqual({
      width: 450,
      height: 300,
    });
  });

  it("clips the crop to the image and refuses a crop outside it", () => {
    expect(plan("c_2900_1900_500_500").crop).toEqual({ left: 2900, top: 1900, width: 100, height: 100 });
    expect(() => plan("c_3000_0_10_10")).toThrow(/c_3000_0_10_10/);
  });

  it("translates crop, box and gravity into the rotated frame", () => {
    const rotated = plan("c_0_0_1000_500,s_400x100,g_north,r_90");
    expect(rotated.crop).toEqual({ left: 1500, top: 0, width: 500, height: 1000 });
    expect(rotated.resize).toMatchObject({ width: 100, height: 400, position: "east" });
  });

  it("with flip or flop only, leaves the crop and maps the gravity", () => {
    const flopped = plan("c_0_0_1000_500,s_400x100,g_west,flop");
    expect(flopped.crop).toEqual({ left: 0, top: 0, width: 1000, height: 500 });
    expect(flopped.resize).toMatchObject({ width: 400, height: 100, position: "east" });
  });

  it("drops smart gravity for animations, which libvips cannot smart-crop", () => {
    expect(plan("s_100x100,g_attention", { keepFrames: true }).resize?.position).toBeUndefined();
    expect(plan("s_100x100,g_attention").resize?.position).toBe("attention");
  });

  it("shrinks placeholders to at most 32 px", () => {
    expect(plan("placeholder").resize).toEqual({ width: 32, height: 32, fit: "inside", withoutEnlargement: true });
    expect(plan("placeholder,s_1200x600").resize).toMatchObject({ width: 32, height: 16, fit: "cover" });
    expect(plan("placeholder,w_2000,dpr_4,enlarge").resize).toMatchObject({
      width: 32,
      height: 32,
      withoutEnlargement: true,
    });
  });
});

describe("planGeometry with padding", () => {
  it("scales padding by dpr, keeps it in the output's orientation and counts its pixels", () => {
    const padded = plan("w_300,pad_1_2_3_4,dpr_2");
    expect(padded.padding).toEqual({ top: 2, right: 4, bottom: 6, left: 8 });
    expect(padded.resize).toMatchObject({ width: 600 });
    expect(padded.outputPixels).toBe((600 + 12) * (400 + 8));
    // Rotated a quarter: the 600-wide image stands 600 tall, and the sides stay the output's.
    const turned = plan("w_300,pad_1_2_3_4,dpr_2,r_90");
    expect(turned.padding).toEqual(padded.padding);
    expect(turned.outputPixels).toBe((400 + 12) * (600 + 8));
  });

  it("leaves room for the padding within the output limit", () => {
    const capped = plan("w_8192,enlarge,pad_100", { maxOutputDimension: 8192 });
    expect(capped.resize).toMatchObject({ width: 8192 - 200 });
    const whole = plan("pad_256", { maxOutputDimension: 2000 });
    expect(whole.resize).toMatchObject({ width: 2000 - 512, height: 2000 - 512, fit: "inside" });
  });

  it("shrinks the image, not the padding, to fit the area cap", () => {
    const capped = plan("s_4000x4000,fit_fill,enlarge,pad_256", { maxOutputPixels: 4_000_000 });
    expect(capped.padding).toEqual({ top: 256, right: 256, bottom: 256, left: 256 });
    expect(capped.outputPixels).toBeLessThanOrEqual(4_000_000);
    expect(capped.outputPixels).toBeGreaterThan(3_980_000);
  });

  it("refuses padding that leaves no room for the image, naming it", () => {
    expect(() => plan("pad_256,dpr_4", { maxOutputDimension: 2048 })).toThrow(/pad_256_256_256_256.*no room/);
    expect(() => plan("pad_256,dpr_4", { maxOutputPixels: 1_000_000 })).toThrow(
      /no room for the image within the 1000000 pixel/,
    );
  });

  it("has no padding on a placeholder", () => {
    expect(plan("placeholder,pad_20").padding).toBeUndefined();
  });
});
