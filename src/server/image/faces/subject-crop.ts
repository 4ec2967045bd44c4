import type { Region } from "../orientation";
import type { ImageOperations } from "../types";

/** g_face and g_auto look for faces; every other gravity keeps pixels, not people. */
export const facesWanted = (ops: ImageOperations): boolean => ops.gravity === "face" || ops.gravity === "auto";

type Size = Pick<Region, "width" | "height">;

/**
 * Where a region of `size` (what a cover crop keeps of `base`) goes: over as many subjects as it can
 * hold whole, centred on them. Subjects are regions of `base` (faces found, or a focal point as an
 * empty region); none: the centre.
 */
export function subjectCrop(base: Size, size: Size, subjects: readonly Region[]): Region {
  const weights = subjects.map((s) => s.width * s.height + 1);
  const left = place(
    base.width,
    size.width,
    subjects.map((s, i) => ({ from: s.left, to: s.left + s.width, weight: weights[i]! })),
  );
  const top = place(
    base.height,
    size.height,
    subjects.map((s, i) => ({ from: s.top, to: s.top + s.height, weight: weights[i]! })),
  );
  return { left, top, width: size.width, height: size.height };
}

/**
 * What sharp's cover keeps of `base` for a box: the box's shape, as large as fits; without enlargement
 * and a box larger than the image, the box itself cut to the image (sharp then crops without scaling).
 */
export function coverRegion(base: Size, box: Size, withoutEnlargement: boolean): Size {
  const scale = Math.max(box.width / base.width, box.height / base.height);
  if (withoutEnlargement && scale > 1) {
    return { width: Math.min(box.width, base.width), height: Math.min(box.height, base.height) };
  }
  const side = (length: number, limit: number) => Math.min(limit, Math.max(1, Math.round(length / scale)));
  return { width: side(box.width, base.width), height: side(box.height, base.height) };
}

interface Span {
  from: number;
  to: number;
  /** A larger face matters more when not all of them fit; a point still counts. */
  weight: number;
}

/**
 * Where a window of `size` along an axis of `length` starts. Each way a window can begin or end at a
 * subject's edge is tried; the one holding the most weight of whole subjects wins (the first, in order
 * of position, on a tie), and the window is then centred on what it holds.
 */
function place(length: number, size: number, spans: readonly Span[]): number {
  const slack = length - size;
  if (slack <= 0) return 0;
  const clamp = (start: number) => Math.min(slack, Math.max(0, Math.round(start)));
  if (spans.length === 0) return clamp(slack / 2);
  const starts = [...new Set(spans.flatMap((s) => [clamp(s.from), clamp(s.to - size)]))].sort((a, b) => a - b);
  let best: Span[] = [];
  let bestWeight = -1;
  for (const start of starts) {
    const inside = spans.filter((s) => s.from >= start && s.to <= start + size);
    const weight = inside.reduce((sum, s) => sum + s.weight, 0);
    if (weight > bestWeight) [best, bestWeight] = [inside, weight];
  }
  if (best.length === 0) {
    // Not one subject fits whole (a face larger than the crop): centre on the heaviest.
    const heaviest = spans.reduce((a, b) => (b.weight > a.weight ? b : a));
    return clamp((heaviest.from + heaviest.to - size) / 2);
  }
  const from = Math.min(...best.map((s) => s.from));
  const to = Math.max(...best.map((s) => s.to));
  // Centred on the subjects held, and never so far that one of them leaves the window.
  const centred = (from + to - size) / 2;
  return clamp(Math.min(from, Math.max(to - size, centred)));
}
