import sharp from "sharp";
import { AppError } from "@/server/errors";
import type { Box, OverlayFor } from "./overlay";
import type { CompassGravity, TransformLimits, WatermarkPlacement } from "./types";

/** A placement with every value filled in (delivery merges the URL's values over the project's). */
export type ResolvedPlacement = Required<Omit<WatermarkPlacement, "sha256">>;

/** Delivery fills every value before the pipeline runs; a gap here is a bug, not a request error. */
export function resolvedPlacement(placement: WatermarkPlacement): ResolvedPlacement {
  const { opacity, gravity, x, y, scale } = placement;
  if (opacity === undefined || gravity === undefined || x === undefined || y === undefined || scale === undefined) {
    throw new AppError("INTERNAL", { message: "a watermark placement reached the pipeline unresolved" });
  }
  return { opacity, gravity, x, y, scale };
}

/**
 * The watermark as an overlay of the output: scaled to its share of the output's width, faded by
 * opacity and placed by gravity and offsets. The watermark never grows past the output; offsets that
 * would push it out are cut to the edge.
 */
export function watermarkOverlay(
  mark: Buffer,
  placement: ResolvedPlacement,
  dpr: number,
  limits: TransformLimits,
): OverlayFor {
  return async (output) => {
    const { data, info } = await fadedMark(mark, placement, output, limits);
    const size = { width: info.width, height: info.height };
    return { data, ...size, ...place(placement, dpr, output, size) };
  };
}

/** Scaled to its share of the output and within it, with its alpha multiplied by the opacity. */
async function fadedMark(mark: Buffer, placement: ResolvedPlacement, output: Box, limits: TransformLimits) {
  const image = sharp(mark, { pages: 1, limitInputPixels: Math.floor(limits.maxInputPixels) }).ensureAlpha();
  const { width = 1, height = 1 } = await image.metadata();
  const wanted = placement.scale > 0 ? output.width * placement.scale : width;
  const ratio = Math.min(wanted / width, output.width / width, output.height / height);
  const size = { width: Math.max(1, Math.round(width * ratio)), height: Math.max(1, Math.round(height * ratio)) };
  // dest-in keeps the watermark's colours and multiplies its alpha by the 1×1 tile's: one libvips pass.
  const alpha = Math.round(255 * placement.opacity);
  const faded = await image
    .resize({ ...size, fit: "fill" })
    .composite([
      { input: Buffer.from([0, 0, 0, alpha]), raw: { width: 1, height: 1, channels: 4 }, tile: true, blend: "dest-in" },
    ])
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (faded.info.channels !== 4) throw new AppError("INTERNAL", { message: "watermark pixels lost their alpha" });
  return faded;
}

export const HORIZONTAL: Record<CompassGravity, "start" | "middle" | "end"> = {
  center: "middle",
  north: "middle",
  south: "middle",
  east: "end",
  northeast: "end",
  southeast: "end",
  west: "start",
  northwest: "start",
  southwest: "start",
};
const VERTICAL: Record<CompassGravity, "start" | "middle" | "end"> = {
  center: "middle",
  east: "middle",
  west: "middle",
  north: "start",
  northeast: "start",
  northwest: "start",
  south: "end",
  southeast: "end",
  southwest: "end",
};

/** Top-left corner of the watermark: offsets (× dpr) go inward from the named edges, or shift a centred axis. */
export function place<Placement extends Pick<ResolvedPlacement, "gravity" | "x" | "y">>(
  placement: Placement,
  dpr: number,
  output: Box,
  mark: Box,
): { left: number; top: number } {
  const along = (side: "start" | "middle" | "end", room: number, offset: number): number => {
    const at = side === "start" ? offset : side === "end" ? room - offset : room / 2 + offset;
    return Math.round(Math.min(Math.max(at, 0), room));
  };
  return {
    left: along(HORIZONTAL[placement.gravity], output.width - mark.width, placement.x * dpr),
    top: along(VERTICAL[placement.gravity], output.height - mark.height, placement.y * dpr),
  };
}
