import sharp, { type Sharp } from "sharp";
import { timeoutSeconds } from "./render-image";
import type { TransformLimits } from "./types";

export interface Box {
  width: number;
  height: number;
}

/** RGBA pixels to draw, and where their top-left corner goes on the output. */
export interface Overlay extends Box {
  data: Buffer;
  left: number;
  top: number;
}

/**
 * Draws an overlay over finished pixels: the output is rendered to raw pixels once (its size is only
 * known then) and the overlay is made for that size. Returns a function of nothing that rebuilds the
 * composited image, so maxbytes_ re-encodes without rendering again.
 */
export async function drawnOver(
  pixels: Sharp,
  overlayFor: (output: Box) => Promise<Overlay>,
  limits: TransformLimits,
): Promise<() => Sharp> {
  const base = await pixels.raw().toBuffer({ resolveWithObject: true });
  const output = { width: base.info.width, height: base.info.height };
  const { data, width, height, left, top } = await overlayFor(output);
  const timeout = { seconds: timeoutSeconds(limits.timeoutMs) };
  return () =>
    sharp(base.data, { raw: { ...output, channels: base.info.channels } })
      .composite([{ input: data, raw: { width, height, channels: 4 }, left, top }])
      .timeout(timeout);
}
