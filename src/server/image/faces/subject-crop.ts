import type { Region } from "../orientation";
import type { ImageOperations } from "../types";

/** g_face and g_auto look for faces; every other gravity keeps pixels, not people. */
export const facesWanted = (ops: ImageOperations): boolean => ops.gravity === "face" || ops.gravity === "auto";

type Size = Pick<Region, "width" | "height">;

/**
 * The region a cover crop of this aspect ratio keeps from `base`: the largest that fits (what sharp's
 * cover keeps), placed over as many subjects as it can hold whole and centred on them. Subjects are
 * regions of `base` (faces found, or a focal point as an empty region); none: the centre.
 */
export function subjectCrop(base: Size, aspect: number, subjects: readonly Region[]): Region {
  const wide = base.width / base.height > aspect;
  const width = wide ? clampSide(Math.round(base.height * aspect), base.width) : base.width;
  const height = wide ? base.height : clampSide(Math.round(base.width / aspect), base.height);
  const weights = subjects.map((s) => s.width * s.height + 1);
  const left = place(
    base.width,
    width,
    subjects.map((s, i) => ({ from: s.left, to: s.left + s.width, weight: weights[i]! })),
  );
  const top = place(
    base.height,
    height,
    subjects.map((s, i) => ({ from: s.top, to: s.top + s.height, weight: weights[i]! })),
  );
  return { left, top, width, height };
}

interface Span {
  from: number;
  to: number;
  /** A larger face matters more when not all of them fit; a point still counts. */
  weight: number;
}

const clampSide = (side: number, limit: number) => Math.min(limit, Math.max(1, side));

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
