import sharp, { type Sharp } from "sharp";
import { applyEncoder, supportsAlpha } from "./encode-options";
import { FAIL_ON } from "./inspect-source";
import type { GeometryPlan } from "./plan-geometry";
import type { ImageOperations, OutputFormat, TransformLimits } from "./types";

type Colour = { r: number; g: number; b: number; alpha: number };

const WHITE: Colour = { r: 255, g: 255, b: 255, alpha: 1 };
const TRANSPARENT: Colour = { r: 0, g: 0, b: 0, alpha: 0 };
/** Sigma for placeholders: at ≤ 32 px this erases detail but keeps the colour layout. */
export const PLACEHOLDER_BLUR = 1.5;

export interface RenderInput {
  ops: ImageOperations;
  format: OutputFormat;
  keepFrames: boolean;
  plan: GeometryPlan;
}

/**
 * One sharp pipeline for the whole job: decode, geometry, effects, encode. sharp runs its steps in its
 * own fixed order whatever the call order; plan-geometry has already translated our order into it.
 * Output is sRGB without metadata: that is sharp's default (no withMetadata/keepIccProfile call).
 */
export function renderImage(input: Buffer, job: RenderInput, limits: TransformLimits): Sharp {
  return applyEncoder(renderPixels(input, job, limits, { padded: true }), job.format, job.ops, limits.webpEffort);
}

/**
 * Decode, geometry and effects, without the encoder; padding only when asked (pixelate pads after).
 * `raw`: the pixels are read back as raw (pixelate, the watermark, q_auto's scoring). sharp's raw
 * output of a greyscale() pipeline keeps its first band only, which drops the alpha; there, grey is
 * made by taking the saturation out (the same lightness, within one level) and the image stays RGB.
 */
export function renderPixels(
  input: Buffer,
  job: RenderInput,
  limits: TransformLimits,
  { padded, raw = false }: { padded: boolean; raw?: boolean },
): Sharp {
  const { ops, format, plan } = job;
  let image = sharp(input, {
    failOn: FAIL_ON,
    // Second guard behind assertWithinLimits: libvips refuses to decode more than this itself.
    limitInputPixels: Math.floor(limits.maxInputPixels),
    autoOrient: true,
    ...(job.keepFrames ? { animated: true } : { pages: 1 }),
  }).timeout({ seconds: timeoutSeconds(limits.timeoutMs) });

  // libvips trims first, whatever the call order; sizes below then apply to the trimmed image.
  if (ops.trim !== undefined) image = image.trim({ threshold: ops.trim });
  // Orientation is requested before extract/resize so that sharp rotates first (see orientation.ts).
  if (plan.orientation.rotate !== 0) image = image.rotate(plan.orientation.rotate);
  if (plan.orientation.flip) image = image.flip();
  if (plan.orientation.flop) image = image.flop();
  if (plan.crop) image = image.extract(plan.crop);
  if (plan.resize) image = image.resize({ ...plan.resize, background: letterboxBackground(ops, format) });
  // sharp extends after resizing and rotating, so the sides are the output's.
  if (plan.padding && padded) image = padWith(image, plan, ops, format);

  // JPEG cannot carry alpha: without this, transparent pixels come out as whatever colour they hide
  // (often black). An opaque bg_ also fills transparency in formats that could keep it.
  if (!supportsAlpha(format) || ops.background?.alpha === 1)
    image = image.flatten({ background: ops.background ?? WHITE });
  const greyByModulate = raw && ops.grayscale === true;
  const modulate = definedOnly({
    brightness: ops.brightness,
    saturation: greyByModulate ? 0 : ops.saturation,
    hue: greyByModulate ? undefined : ops.hue,
  });
  if (Object.keys(modulate).length > 0) image = image.modulate(modulate);
  if (ops.grayscale && !greyByModulate) image = image.grayscale();
  const blur = ops.placeholder ? Math.max(ops.blur ?? 0, PLACEHOLDER_BLUR) : ops.blur;
  if (blur !== undefined) image = image.blur(blur);
  if (ops.sharpen !== undefined) image = image.sharpen({ sigma: ops.sharpen });
  return image;
}

/**
 * The finished pixels rendered once to raw, as a function that starts an encode from them: an encode
 * made from raw pixels carries nothing of the source's metadata but what it is given.
 */
export async function detachedPixels(input: Buffer, job: RenderInput, limits: TransformLimits): Promise<() => Sharp> {
  const { data, info } = await renderPixels(input, job, limits, { padded: true, raw: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { width: info.width, height: info.height, channels: info.channels };
  return () => sharp(data, { raw }).timeout({ seconds: timeoutSeconds(limits.timeoutMs) });
}

export function padWith(image: Sharp, plan: GeometryPlan, ops: ImageOperations, format: OutputFormat): Sharp {
  return plan.padding ? image.extend({ ...plan.padding, background: letterboxBackground(ops, format) }) : image;
}

/** sharp's modulate refuses a key that is present but undefined. */
function definedOnly<T extends Record<string, number | undefined>>(values: T): { [K in keyof T]?: number } {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: number };
}

/** Letterbox colour: bg_ if given, else transparent where the format allows it, else white. */
function letterboxBackground(ops: ImageOperations, format: OutputFormat): Colour {
  return ops.background ?? (supportsAlpha(format) ? TRANSPARENT : WHITE);
}

/**
 * The first frame of a source, upright, under the transform's limits: what the small copies made to
 * look at a source (info's hashes, the face detector's view) start from.
 */
export function firstFrame(input: Buffer, limits: TransformLimits): Sharp {
  return sharp(input, {
    failOn: FAIL_ON,
    limitInputPixels: Math.floor(limits.maxInputPixels),
    autoOrient: true,
    pages: 1,
  }).timeout({ seconds: timeoutSeconds(limits.timeoutMs) });
}

/** libvips checks whole seconds; round up so a budget is never cut shorter than configured. */
export function timeoutSeconds(timeoutMs: number): number {
  return Math.min(3600, Math.max(1, Math.ceil(timeoutMs / 1000)));
}
