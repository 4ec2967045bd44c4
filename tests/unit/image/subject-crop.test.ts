import { describe, expect, it } from "vitest";
import { parseOperations } from "@/server/image";
import { coverRegion, subjectCrop as placeRegion } from "@/server/image/faces/subject-crop";
import { checkCombination, describesSourceOnly } from "@/server/image/operations/parse";
import { planGeometry } from "@/server/image/plan-geometry";

const wide = { width: 3000, height: 2000 };
const face = (left: number, top: number, side = 200) => ({ left, top, width: side, height: side });
type Size = { width: number; height: number };
/** The region a cover crop to a box of this shape keeps, placed over the subjects. */
const subjectCrop = (base: Size, aspect: number, subjects: Parameters<typeof placeRegion>[2]) =>
  placeRegion(base, coverRegion(base, { width: aspect * 1000, height: 1000 }, false), subjects);

describe("subjectCrop", () => {
  it("keeps the largest region of the box's shape, centred when there is no subject", () => {
    expect(subjectCrop(wide, 1, [])).toEqual({ left: 500, top: 0, width: 2000, height: 2000 });
    expect(subjectCrop(wide, 16 / 9, [])).toEqual({ left: 0, top: 156, width: 3000, height: 1688 });
  });

  it("centres on a face near an edge as far as the image allows", () => {
    expect(subjectCrop(wide, 1, [face(2700, 100)])).toEqual({ left: 1000, top: 0, width: 2000, height: 2000 });
    expect(subjectCrop(wide, 0.5, [face(1500, 900)])).toMatchObject({ left: 1100, width: 1000 });
  });

  it("keeps every face whole when they fit together, centred on them", () => {
    const faces = [face(200, 500), face(1600, 500)];
    const kept = subjectCrop(wide, 1, faces);
    expect(kept.left).toBe(0); // both need 200..1800: centred would start at 0
    for (const f of faces) expect(f.left >= kept.left && f.left + f.width <= kept.left + kept.width).toBe(true);
  });

  it("keeps the most face when they do not all fit: the larger faces first", () => {
    // A 1000-wide window cannot hold faces at 100 and 2500; the larger one wins.
    const kept = subjectCrop({ width: 3000, height: 1000 }, 1, [face(100, 100, 150), face(2500, 100, 300)]);
    expect(kept.left).toBeGreaterThan(1700);
    expect(kept.left + kept.width).toBeGreaterThanOrEqual(2800);
    // Two small faces together outweigh one of their size alone.
    const pair = subjectCrop({ width: 3000, height: 1000 }, 1, [face(100, 100), face(600, 100), face(2500, 100)]);
    expect(pair.left).toBe(0);
  });

  it("centres on a face larger than the crop rather than an edge of it", () => {
    const kept = subjectCrop({ width: 3000, height: 1000 }, 0.5, [face(1000, 0, 1000)]);
    expect(kept).toEqual({ left: 1250, top: 0, width: 500, height: 1000 });
  });

  it("keeps what sharp's cover keeps: without enlargement, a box larger than the image is cut to it", () => {
    expect(coverRegion({ width: 1920, height: 1350 }, { width: 2400, height: 1000 }, true)).toEqual({
      width: 1920,
      height: 1000,
    });
    expect(coverRegion({ width: 1, height: 10000 }, { width: 100, height: 100 }, true)).toEqual({
      width: 1,
      height: 100,
    });
    expect(coverRegion({ width: 1000, height: 667 }, { width: 1200, height: 630 }, true)).toEqual({
      width: 1000,
      height: 630,
    });
    // Allowed to enlarge: the box's shape, as large as fits.
    expect(coverRegion({ width: 1000, height: 667 }, { width: 1200, height: 630 }, false)).toEqual({
      width: 1000,
      height: 525,
    });
  });

  it("treats a point as a subject (fp_)", () => {
    expect(subjectCrop(wide, 1, [{ left: 0, top: 0, width: 0, height: 0 }]).left).toBe(0);
    expect(subjectCrop(wide, 1, [{ left: 3000, top: 0, width: 0, height: 0 }]).left).toBe(1000);
  });
});

describe("g_face, g_auto and fp_ in the geometry", () => {
  const plan = (segment: string, faces?: ReturnType<typeof face>[], source = wide) =>
    planGeometry({ source, ops: parseOperations(segment), maxOutputDimension: 8192, keepFrames: false, faces });

  it("crops to the faces found and fills the box with that region", () => {
    const result = plan("w_400,h_400,g_face", [face(2600, 300)]);
    expect(result.crop).toEqual({ left: 1000, top: 0, width: 2000, height: 2000 });
    expect(result.resize).toMatchObject({ width: 400, height: 400, fit: "cover" });
    expect(result.resize?.position).toBeUndefined();
    expect(result.cutsByGravity).toBe(true);
  });

  it("keeps the centre when g_face finds nobody, and attention when g_auto does not", () => {
    expect(plan("w_400,h_400,g_face", []).resize?.position).toBeUndefined();
    expect(plan("w_400,h_400,g_face", []).crop).toBeUndefined();
    expect(plan("w_400,h_400,g_auto", []).resize?.position).toBe("attention");
    expect(plan("w_400,h_400,g_auto", [], wide).crop).toBeUndefined();
    // An animation cannot be smart-cropped: the centre.
    const animated = planGeometry({
      source: wide,
      ops: parseOperations("w_400,h_400,g_auto"),
      maxOutputDimension: 8192,
      keepFrames: true,
      faces: [face(2600, 300)],
    });
    expect(animated.crop).toBeUndefined();
    expect(animated.resize?.position).toBeUndefined();
  });

  it("says whether a cover crop cuts anything, which is when faces are worth looking for", () => {
    expect(plan("w_300,h_200,g_face").cutsByGravity).toBe(false); // the image's own shape
    expect(plan("w_400,g_face").cutsByGravity).toBe(false);
    expect(plan("w_400,h_400,fit_contain,g_face").cutsByGravity).toBe(false);
    expect(plan("w_400,h_400,g_face").cutsByGravity).toBe(true);
  });

  it("keeps fp_'s point, in the source's fractions, whatever faces were found", () => {
    expect(plan("w_400,h_400,fp_0.9_0.5").crop).toEqual({ left: 1000, top: 0, width: 2000, height: 2000 });
    expect(plan("w_400,h_400,fp_0.1_0.5").crop).toEqual({ left: 0, top: 0, width: 2000, height: 2000 });
    expect(plan("w_400,h_100,fp_0.5_1").crop).toEqual({ left: 0, top: 1250, width: 3000, height: 750 });
  });

  it("looks for the subject within c_'s region, clips faces to it and leaves out those outside it", () => {
    const result = plan("c_1000_0_2000_2000,w_200,h_400,g_face", [face(2700, 500)]);
    // Within the region, the face is clipped to 1700..2000: the window sits at its right edge.
    expect(result.crop).toEqual({ left: 2000, top: 0, width: 1000, height: 2000 });
    const inside = plan("c_500_0_1000_1000,w_100,h_200,g_face", [face(900, 400, 100)]).crop;
    const withOutside = plan("c_500_0_1000_1000,w_100,h_200,g_face", [face(900, 400, 100), face(10, 400, 100)]).crop;
    expect(withOutside).toEqual(inside);
    expect(plan("c_500_0_1000_1000,w_100,h_200,g_face", [face(10, 400, 100)]).crop).toEqual({
      left: 500,
      top: 0,
      width: 1000,
      height: 1000,
    });
    // A focal point outside c_'s region is held at its edge.
    expect(plan("c_500_0_1000_1000,w_100,h_200,fp_0_0.5").crop).toMatchObject({ left: 500, width: 500 });
  });

  it("makes the output sharp's cover makes, faces or not, when the box is larger than the image", () => {
    const small = { width: 1000, height: 667 };
    const plain = plan("w_1200,h_630", undefined, small);
    const focused = plan("w_1200,h_630,fp_0.5_0.5", undefined, small);
    expect(focused.crop).toEqual({ left: 0, top: 19, width: 1000, height: 630 });
    expect(focused.resize).toEqual(plain.resize);
    const strip = plan("w_100,h_100,fp_0.5_1", undefined, { width: 1, height: 10000 });
    expect(strip.crop).toEqual({ left: 0, top: 9900, width: 1, height: 100 });
  });

  it("moves the region through a quarter turn like c_", () => {
    const turned = plan("w_400,h_400,g_face,r_90", [face(2600, 300)]);
    // Rotated 90° clockwise, the source's right side is the bottom.
    expect(turned.crop).toEqual({ left: 0, top: 1000, width: 2000, height: 2000 });
  });
});

describe("the face tokens", () => {
  it("parse, and a later g_ or fp_ replaces the other", () => {
    expect(parseOperations("g_face")).toMatchObject({ gravity: "face" });
    expect(parseOperations("g_auto")).toMatchObject({ gravity: "auto" });
    expect(parseOperations("fp_0.25_1")).toMatchObject({ focus: { x: 0.25, y: 1 } });
    expect(parseOperations("g_face,fp_0.5_0.5").gravity).toBeUndefined();
    expect(parseOperations("fp_0.5_0.5,g_face").focus).toBeUndefined();
  });

  it.each(["fp_", "fp_0.5", "fp_1.5_0", "fp_-0.1_0", "fp_0.5_0.5_0", "fp_a_b", "g_faces"])("refuses %s", (segment) => {
    expect(() => parseOperations(segment)).toThrow(/Invalid operation/);
  });

  it("refuses trim with a focal point or faces: they choose a region of the untrimmed image", () => {
    for (const segment of ["trim,fp_0.5_0.5", "trim_5,g_face", "trim,g_auto"]) {
      expect(() => checkCombination(parseOperations(segment))).toThrow(/trim cannot be combined/);
    }
    expect(() => checkCombination(parseOperations("trim,g_attention"))).not.toThrow();
  });

  it("lets info with g_face describe the source and its faces, not an output", () => {
    expect(describesSourceOnly(parseOperations("info,g_face"))).toBe(true);
    expect(describesSourceOnly(parseOperations("info,g_auto"))).toBe(true);
    expect(describesSourceOnly(parseOperations("info,g_north"))).toBe(false);
    expect(describesSourceOnly(parseOperations("info,g_face,w_100"))).toBe(false);
  });
});
