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

/** An overlay made for the output's size, which is only known once the output is rendered. */
export type OverlayFor = (output: Box) => Promise<Overlay>;

/**
 * Draws overlays over finished pixels, in order, in one pass: the output is rendered to raw pixels once
 * and each overlay is made for that size. Returns a function of nothing that gives the composited
 * image, so maxbytes_ re-encodes without rendering again.
 */
export async function drawnOver(
  pixels: Sharp,
  overlays: readonly OverlayFor[],
  limits: TransformLimits,
): Promise<() => Sharp> {
  const base = await pixels.raw().toBuffer({ resolveWithObject: true });
  const output = { width: base.info.width, height: base.info.height };
  const layers = await Promise.all(overlays.map((overlayFor) => overlayFor(output)));
  const timeout = { seconds: timeoutSeconds(limits.timeoutMs) };
  // Composited once, so that maxbytes_'s encodes do not composite again.
  const drawn = await sharp(base.data, { raw: { ...output, channels: base.info.channels } })
    .composite(
      layers.map(({ data, width, height, left, top }) => ({
        input: data,
        raw: { width, height, channels: 4 as const },
        left,
        top,
      })),
    )
    .timeout(timeout)
    .raw()
    .toBuffer({ resolveWithObject: true });
  // The overlays' alpha is their own: an opaque output stays opaque (an alpha channel would be bytes for nothing).
  const opaque = base.info.channels === 1 || base.info.channels === 3;
  return () => {
    const image = sharp(drawn.data, { raw: { ...output, channels: drawn.info.channels } }).timeout(timeout);
    return opaque && drawn.info.channels === 4 ? image.removeAlpha() : image;
  };
}
