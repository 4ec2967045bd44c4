import { AppError } from "@/server/errors";
import { orientGravity, orientRegion, swapsAxes, type Orientation, type Region } from "./orientation";
import { coverRegion, facesWanted, subjectCrop } from "./faces/subject-crop";
import type { FitMode, ImageOperations } from "./types";

/** Longest side of a placeholder: small enough to inline, large enough to hint at the picture. */
export const PLACEHOLDER_SIZE = 32;

export interface Size {
  width: number;
  height: number;
}

export interface ResizePlan {
  width?: number;
  height?: number;
  fit: FitMode;
  /** A sharp gravity or strategy name; undefined = centre. */
  position?: string;
  withoutEnlargement: boolean;
}

/** Arguments for sharp, in the coordinates sharp will see them (see orientation.ts). */
export interface GeometryPlan {
  crop?: Region;
  resize?: ResizePlan;
  orientation: Orientation;
  /** Added around the result, in the output's orientation, dpr applied. */
  padding?: Padding;
  /** Pixels of one output frame, padding included: what the encoder has to work through. */
  outputPixels: number;
  /** A cover crop cuts part of the image away: the gravity (faces, a focal point) decides which. */
  cutsByGravity: boolean;
}

export type Padding = NonNullable<ImageOperations["padding"]>;

export interface GeometryInput {
  /** One frame, after EXIF orientation. */
  source: Size;
  ops: ImageOperations;
  maxOutputDimension: number;
  /** Largest output area of one frame; a larger result is scaled down to fit, keeping its shape. */
  maxOutputPixels?: number;
  /** libvips cannot smart-crop multi-page images: animations fall back to a centred crop. */
  keepFrames: boolean;
  /** Faces found in the source (after EXIF orientation), for g_face and g_auto; see facesWanted. */
  faces?: readonly Region[];
}

/**
 * Meaning: crop (c_) in source coordinates → resize (w/h × dpr, fit, gravity, no enlargement unless
 * `enlarge`) → flip/flop/rotate → padding. The output, padding included, never exceeds
 * maxOutputDimension on either side.
 */
export function planGeometry({
  source,
  ops,
  maxOutputDimension,
  maxOutputPixels,
  keepFrames,
  faces,
}: GeometryInput): GeometryPlan {
  const orientation: Orientation = { rotate: toQuarter(ops.rotate), flip: ops.flip === true, flop: ops.flop === true };
  const padding = scaledPadding(ops);
  // Padding in the image's axes before rotation, where the resize is planned.
  const across = padding ? padding.left + padding.right : 0;
  const down = padding ? padding.top + padding.bottom : 0;
  const extra = swapsAxes(orientation) ? { x: down, y: across } : { x: across, y: down };
  const room = maxOutputDimension - Math.max(extra.x, extra.y);
  if (room < 1) throw paddingTooLarge(ops, `the ${maxOutputDimension} px output limit`);

  let crop = ops.crop && clampCrop(ops.crop, source);
  // With trim_ libvips resizes what is left after trimming, unknown until decoded: every size below is
  // then an upper bound, so the limits still hold (a box stays a box, one side keeps the trimmed shape).
  const base = crop ?? source;
  let resize = requestedResize(ops, room);
  const predicted = predictSize(base, resize);
  if (Math.max(predicted.width, predicted.height) > room) {
    resize = { width: room, height: room, fit: "inside", withoutEnlargement: true };
  }
  if (maxOutputPixels !== undefined) resize = capArea(base, resize, maxOutputPixels, extra, ops);
  const output = predictSize(base, resize);
  const outputPixels = (output.width + extra.x) * (output.height + extra.y);
  const cover = coverCut(base, resize);
  const subjects = cover && !keepFrames ? subjectsOf(ops, source, faces, crop) : [];
  if (cover && subjects.length > 0) {
    // Faces or a focal point choose the region itself: it becomes the crop, which the box then fills.
    const region = subjectCrop(base, cover, subjects);
    crop = { ...region, left: region.left + (crop?.left ?? 0), top: region.top + (crop?.top ?? 0) };
  } else {
    const gravity = positionOf(ops.gravity, keepFrames);
    if (resize && gravity) resize = { ...resize, position: orientGravity(gravity, orientation) };
  }
  const cutsByGravity = cover !== null;

  // With a rotation, sharp rotates before cropping and resizing: move the crop into the rotated frame
  // and swap the box. Flip/flop alone run after sharp's resize but before its crop: gravity is enough.
  if (orientation.rotate !== 0 && (crop || resize)) {
    return {
      crop: crop && orientRegion(crop, source, orientation),
      resize: resize && swapsAxes(orientation) ? { ...resize, width: resize.height, height: resize.width } : resize,
      orientation,
      padding,
      outputPixels,
      cutsByGravity,
    };
  }
  return { crop, resize, orientation, padding, outputPixels, cutsByGravity };
}

/** The region a cover crop keeps of the image, when it cuts some of it away; else null. */
function coverCut(base: Size, resize: ResizePlan | undefined): Size | null {
  if (resize?.fit !== "cover" || resize.width === undefined || resize.height === undefined) return null;
  const box = { width: resize.width, height: resize.height };
  const kept = coverRegion(base, box, resize.withoutEnlargement);
  return kept.width < base.width || kept.height < base.height ? kept : null;
}

/**
 * What a cover crop keeps whole, in the coordinates of c_'s region (the source without c_): fp_'s
 * point, held inside the region; else the faces g_face or g_auto found, cut to the region, and those
 * wholly outside it left out.
 */
function subjectsOf(
  ops: ImageOperations,
  source: Size,
  faces: readonly Region[] | undefined,
  crop: Region | undefined,
): Region[] {
  const bounds = crop ?? { left: 0, top: 0, ...source };
  const x = (value: number) => Math.min(Math.max(value - bounds.left, 0), bounds.width);
  const y = (value: number) => Math.min(Math.max(value - bounds.top, 0), bounds.height);
  if (ops.focus) {
    const point = { left: x(Math.round(ops.focus.x * source.width)), top: y(Math.round(ops.focus.y * source.height)) };
    return [{ ...point, width: 0, height: 0 }];
  }
  if (!facesWanted(ops)) return [];
  return (faces ?? []).flatMap((face) => {
    const [left, top] = [x(face.left), y(face.top)];
    const [right, bottom] = [x(face.left + face.width), y(face.top + face.height)];
    return right > left && bottom > top ? [{ left, top, width: right - left, height: bottom - top }] : [];
  });
}

/**
 * sharp's position for a crop no subject decided: g_face with no face keeps the centre, g_auto looks
 * for what draws the eye (attention). libvips cannot smart-crop an animation: the centre then.
 */
function positionOf(gravity: string | undefined, keepFrames: boolean): string | undefined {
  const position = gravity === "face" ? undefined : gravity === "auto" ? "attention" : gravity;
  const smart = position === "attention" || position === "entropy";
  return keepFrames && smart ? undefined : position;
}

/** pad_ × dpr; a placeholder has no room for it. */
function scaledPadding(ops: ImageOperations): Padding | undefined {
  if (!ops.padding || ops.placeholder) return undefined;
  const dpr = ops.dpr ?? 1;
  const { top, right, bottom, left } = ops.padding;
  return {
    top: Math.round(top * dpr),
    right: Math.round(right * dpr),
    bottom: Math.round(bottom * dpr),
    left: Math.round(left * dpr),
  };
}

function paddingTooLarge(ops: ImageOperations, what: string): AppError {
  const { top, right, bottom, left } = ops.padding!;
  return new AppError("INVALID_OPERATION", {
    message: `Invalid operation "pad_${top}_${right}_${bottom}_${left}": it leaves no room for the image within ${what}`,
  });
}

/**
 * Encoders take time in proportion to the pixels they write (AVIF ≈ 0.7 s per megapixel at q99 on one
 * core, measured), and the longest side alone allows 8192² = 67 MP. Over the area cap the box is scaled
 * as a whole, so fit, crop position and aspect ratio stay what the URL asked for; the page still gets
 * an image (the browser scales it to its slot) instead of an error.
 */
function capArea(
  base: Size,
  resize: ResizePlan | undefined,
  maxPixels: number,
  extra: { x: number; y: number },
  ops: ImageOperations,
): ResizePlan | undefined {
  const predicted = predictSize(base, resize);
  const { width: w, height: h } = predicted;
  if ((w + extra.x) * (h + extra.y) <= maxPixels) return resize;
  if (extra.x * extra.y >= maxPixels) throw paddingTooLarge(ops, `the ${maxPixels} pixel output area`);
  // The largest factor with (w·f + x)(h·f + y) ≤ maxPixels: the padding keeps its size, the image shrinks.
  const [a, b, c] = [w * h, w * extra.y + h * extra.x, extra.x * extra.y - maxPixels];
  const factor = (-b + Math.sqrt(b * b - 4 * a * c)) / (2 * a);
  const shrink = (side: number) => Math.max(1, Math.floor(side * factor));
  if (!resize || (resize.fit === "outside" && resize.width !== undefined && resize.height !== undefined)) {
    return {
      width: shrink(predicted.width),
      height: shrink(predicted.height),
      fit: "inside",
      withoutEnlargement: resize?.withoutEnlargement ?? true,
    };
  }
  // Sides given are the predicted ones (a box is the output; one side may be held back by no-enlargement).
  return {
    ...resize,
    width: resize.width === undefined ? undefined : shrink(predicted.width),
    height: resize.height === undefined ? undefined : shrink(predicted.height),
  };
}

function clampCrop(crop: Region, source: Size): Region {
  if (crop.left >= source.width || crop.top >= source.height) {
    const token = `c_${crop.left}_${crop.top}_${crop.width}_${crop.height}`;
    throw new AppError("INVALID_OPERATION", {
      message: `Invalid operation "${token}": the region lies outside the ${source.width}x${source.height} image`,
    });
  }
  return {
    left: crop.left,
    top: crop.top,
    width: Math.min(crop.width, source.width - crop.left),
    height: Math.min(crop.height, source.height - crop.top),
  };
}

function requestedResize(ops: ImageOperations, cap: number): ResizePlan | undefined {
  if (ops.placeholder) return placeholderResize(ops);
  const dpr = ops.dpr ?? 1;
  let width = ops.width === undefined ? undefined : Math.round(ops.width * dpr);
  let height = ops.height === undefined ? undefined : Math.round(ops.height * dpr);
  if (width === undefined && height === undefined) return undefined;
  // Scale the box as a whole so that dpr never changes its aspect ratio.
  const factor = Math.min(1, cap / Math.max(width ?? 0, height ?? 0));
  if (width !== undefined) width = Math.max(1, Math.round(width * factor));
  if (height !== undefined) height = Math.max(1, Math.round(height * factor));
  return { width, height, fit: chooseFit(ops), withoutEnlargement: ops.enlarge !== true };
}

/** `embed` is a letterbox, i.e. contain; it wins over an explicit fit_. */
function chooseFit(ops: ImageOperations): FitMode {
  return ops.embed ? "contain" : (ops.fit ?? "cover");
}

function placeholderResize(ops: ImageOperations): ResizePlan {
  if (ops.width !== undefined && ops.height !== undefined) {
    const factor = Math.min(1, PLACEHOLDER_SIZE / Math.max(ops.width, ops.height));
    const width = Math.max(1, Math.round(ops.width * factor));
    const height = Math.max(1, Math.round(ops.height * factor));
    return { width, height, fit: chooseFit(ops), withoutEnlargement: true };
  }
  return { width: PLACEHOLDER_SIZE, height: PLACEHOLDER_SIZE, fit: "inside", withoutEnlargement: true };
}

/**
 * The output size sharp will produce, where it can exceed the box: a single dimension (the other one
 * follows the aspect ratio), fit_outside, or no resize at all. The other fits stay within the box.
 */
export function predictSize(base: Size, resize: ResizePlan | undefined): Size {
  if (!resize) return base;
  const limit = (scale: number) => (resize.withoutEnlargement ? Math.min(scale, 1) : scale);
  const { width, height } = resize;
  let scale: number;
  if (width !== undefined && height !== undefined) {
    if (resize.fit !== "outside") return { width, height };
    scale = limit(Math.max(width / base.width, height / base.height));
  } else {
    scale = limit(width !== undefined ? width / base.width : height! / base.height);
  }
  return { width: Math.round(base.width * scale), height: Math.round(base.height * scale) };
}

function toQuarter(rotate: number | undefined): Orientation["rotate"] {
  return rotate === 90 || rotate === 180 || rotate === 270 ? rotate : 0;
}
