import { AppError } from "@/server/errors";
import { applyEncoder, CONTENT_TYPES, supportsAnimation } from "./encode-options";
import { withMetadata } from "./attribution";
import { assertWithinLimits, inspectSource, type SourceInfo } from "./inspect-source";
import { describeImage } from "./describe-image";
import { encodeWithinBytes, honoursMaxBytes, startingQuality, type Encoded } from "./fit-bytes";
import { acceptClass, negotiateFormat } from "./negotiate";
import { describesSourceOnly } from "./operations/parse";
import { pixelated } from "./pixelate";
import { planGeometry, type GeometryInput } from "./plan-geometry";
import { isSearchedFormat } from "./quality/auto-quality";
import { encodeBest } from "./quality/best-format";
import { encodeToTarget } from "./quality/encode-to-target";
import { DEFAULT_LEVEL } from "./quality/levels";
import { detachedPixels, renderImage, renderPixels, type RenderInput } from "./render-image";
import { toImageError } from "./sharp-errors";
import { sanitiseSvg } from "./svg-safety";
import { embeddedRasterPixels } from "./svg-rasters";
import type { ImageOperations, OutputFormat, TransformLimits, TransformResult } from "./types";
import { resolvedPlacement, watermarkOverlay } from "./watermark";
import { heicAsStill, type Original } from "./heic";
import { captionOverlayFor } from "./caption";
import { drawnOver, type OverlayFor } from "./overlay";
import type { Face } from "./faces/detector";
import { findFaces } from "./faces/find-faces";
import { facesWanted } from "./faces/subject-crop";
import type { Sharp } from "sharp";

export interface TransformRequest {
  accept: string | null;
  /** The project's watermark image, when the operations place it (delivery resolves both). */
  watermark?: Buffer;
}

/**
 * Source bytes → output image, as ordered steps; every limit is checked before pixels are decoded:
 *   1. inspect: header only (format, size, frames) → 415 / 422 / 413
 *   2. choose the output format (f_, Accept, source) — an untouched SVG leaves here, if safe
 *   3. admit: frames to decode × frame size, frame count → 413
 *   4. plan the geometry (crop, resize, orientation, output-dimension cap)
 *   5. render and encode with sharp, under the timeout → 504 / 422
 */
export async function transformImage(
  input: Buffer,
  ops: ImageOperations,
  request: TransformRequest,
  limits: TransformLimits,
  original?: Original,
): Promise<TransformResult> {
  if (!original) {
    // HEIC is decoded first, into a still the steps below read like any other (heic.ts).
    const still = await heicAsStill(input, limits);
    if (still) return await transformImage(still, ops, request, limits, { format: "heic", bytes: input.length });
  }
  if (ops.info) {
    // With operations: describe what they make too, exactly as the same URL without info makes it.
    const { info: _, ...rest } = ops;
    const output = describesSourceOnly(ops) ? undefined : await transformImage(input, rest, request, limits, original);
    return await describeImage(input, limits, { output, original, faces: facesWanted(ops) });
  }
  const source = await inspectSource(input, limits);
  const chosen = negotiateFormat(ops, request.accept, source.format, source);
  if (chosen.format === "svg") return await passThroughSvg(input, source);
  const { negotiated } = chosen;
  let format: OutputFormat = chosen.format;

  const keepFrames = shouldKeepFrames(source, format, ops);
  // Only a rasterised SVG decodes what it embeds; a canvas already over the limit needs no counting.
  const canvas = source.width * source.height;
  const embedded =
    source.format === "svg" && canvas <= limits.maxInputPixels
      ? await embeddedRasterPixels(input, limits.maxInputPixels - canvas)
      : 0;
  assertWithinLimits(source, keepFrames ? source.frames : 1, limits, embedded);
  let geometry: GeometryInput = { source, ops, maxOutputDimension: limits.maxOutputDimension, keepFrames };
  let plan = planGeometry({ ...geometry, maxOutputPixels: limits.maxOutputPixels });
  // Faces are looked for only where a crop will cut (and never in an animation, kept centred).
  const faces =
    plan.cutsByGravity && facesWanted(ops) && !keepFrames ? await findFaces(input, source, limits) : undefined;
  if (faces) {
    geometry = { ...geometry, faces };
    plan = planGeometry({ ...geometry, maxOutputPixels: limits.maxOutputPixels });
  }
  const { maxAvifPixels } = limits;
  if (format === "avif" && plan.outputPixels > maxAvifPixels) {
    // Negotiated: every browser that takes AVIF takes WebP, which encodes a large image in a fraction
    // of the time. Asked for by name: keep the format, at the area AVIF is allowed.
    if (negotiated) format = "webp";
    else plan = planGeometry({ ...geometry, maxOutputPixels: maxAvifPixels });
  }

  try {
    const job = { ops, format, keepFrames, plan };
    // The credit line only, unless meta_ says otherwise (docs/url-format.md, Metadata and colour). A
    // credit line written by a pipeline that decodes the source would carry the source's EXIF preview
    // along (attribution.ts): such a still is encoded from its raw pixels, and an animation (no raw
    // route here) or a kept profile (raw pixels have none) goes without the credit line.
    // GIF has no place for a profile: its pixels are converted to sRGB whatever cs_ says.
    const keepProfile = ops.colourSpace === "keep" && source.rgbProfile === true && format !== "gif";
    const preview = source.exifPreview === true && ops.metadata === undefined && source.attribution !== undefined;
    const detach = preview && !keepFrames && !keepProfile;
    const fromSource = ops.metadata === "keep" || keepProfile;
    const metadata = {
      attribution: preview && !detach ? undefined : source.attribution,
      mode: ops.metadata,
      keepProfile,
      ...(fromSource ? { keepFrom: () => renderPixels(input, job, limits, { padded: true }) } : {}),
    };
    const finish = await passesOverPixels(input, job, limits, request.watermark, detach);
    if (ops.format === "best" && !keepFrames && !ops.placeholder) {
      const pixels = finish ? finish() : renderPixels(input, job, limits, { padded: true, raw: true });
      const level = ops.qualityTarget ?? DEFAULT_LEVEL;
      const accepts = acceptClass(request.accept);
      const best = await encodeBest({ pixels, primary: format, accepts, level, ops, output: metadata }, limits);
      return {
        ...answerOf(best.encoded, best.format, negotiated, faces),
        ...(best.measured ? { measured: best.measured } : {}),
      };
    }
    if (ops.qualityTarget && isSearchedFormat(format) && !keepFrames && !ops.placeholder) {
      const pixels = finish ? finish() : renderPixels(input, job, limits, { padded: true, raw: true });
      const { encoded, measured } = await encodeToTarget(
        { pixels, format, level: ops.qualityTarget, ops, output: metadata },
        limits,
      );
      return { ...answerOf(encoded, format, negotiated, faces), ...(measured ? { measured } : {}) };
    }
    const render = (quality: number | undefined, timeoutMs: number): Promise<Encoded> =>
      withMetadata(
        finish
          ? applyEncoder(finish(), format, { ...ops, quality }, limits.webpEffort)
          : renderImage(input, { ...job, ops: { ...ops, quality } }, { ...limits, timeoutMs }),
        metadata,
      ).toBuffer({ resolveWithObject: true });
    const { data, info } =
      ops.maxBytes !== undefined && honoursMaxBytes(format)
        ? await encodeWithinBytes(render, ops.maxBytes, startingQuality(ops, format), limits.timeoutMs)
        : await render(ops.quality, limits.timeoutMs);
    return answerOf({ data, info }, format, negotiated, faces);
  } catch (error) {
    throw toImageError(error, "transform");
  }
}

function answerOf(
  { data, info }: Encoded,
  format: OutputFormat,
  negotiated: boolean,
  faces: Face[] | undefined,
): TransformResult {
  // For an animation, info.height is all frames stacked; report one frame.
  const height = info.pageHeight ?? info.height;
  const answer = { body: data, format, contentType: CONTENT_TYPES[format], width: info.width, height, negotiated };
  return faces ? { ...answer, faces } : answer;
}

/**
 * Passes that need the rendered pixels first: pixelate, then the watermark and the caption over the
 * result in one pass (neither is pixelated; the caption is on top). Null when one sharp pipeline does
 * the whole job; with `detach`, never: the raw pixels then, so that the encode carries none of the
 * source's metadata.
 */
async function passesOverPixels(
  input: Buffer,
  job: RenderInput,
  limits: TransformLimits,
  mark: Buffer | undefined,
  detach: boolean,
): Promise<(() => Sharp) | null> {
  const { ops } = job;
  const pixels = ops.pixelate !== undefined ? await pixelated(input, job, limits) : null;
  const dpr = ops.dpr ?? 1;
  const overlays: OverlayFor[] = [];
  if (ops.watermark) {
    if (!mark) throw new AppError("INTERNAL", { message: "a watermark was placed without its image" });
    overlays.push(watermarkOverlay(mark, resolvedPlacement(ops.watermark), dpr, limits));
  }
  if (ops.text !== undefined) overlays.push(captionOverlayFor(ops.text, ops.textStyle, dpr));
  if (overlays.length === 0) return pixels ?? (detach ? await detachedPixels(input, job, limits) : null);
  const under = pixels ? pixels() : renderPixels(input, job, limits, { padded: true, raw: true });
  return await drawnOver(under, overlays, limits);
}

/**
 * Frames survive only into a format that animates, unless anim_false or a placeholder asks for a still
 * (libvips cannot trim an animation either, and pixelate, the watermark and a caption work on one frame's pixels:
 * they give the first frame).
 * libvips flips and rotates a multi-frame image as one tall strip, which reverses the frame order
 * (and refuses 90°/270°), so flip and r_ also give the first frame rather than a wrong animation.
 */
function shouldKeepFrames(source: SourceInfo, format: OutputFormat, ops: ImageOperations): boolean {
  return (
    source.animated &&
    supportsAnimation(format) &&
    ops.animated !== false &&
    ops.placeholder !== true &&
    ops.flip !== true &&
    ops.trim === undefined &&
    ops.pixelate === undefined &&
    ops.watermark === undefined &&
    ops.text === undefined &&
    (ops.rotate ?? 0) === 0
  );
}

async function passThroughSvg(input: Buffer, source: SourceInfo): Promise<TransformResult> {
  if (input[0] === 0x1f && input[1] === 0x8b) {
    // A gzipped SVGZ would be served as plain SVG and fail to render; ask for a raster instead.
    throw new AppError("UNSUPPORTED_IMAGE", { message: "Compressed SVG cannot be passed through; request f_png" });
  }
  return {
    body: await sanitiseSvg(input),
    format: "svg",
    contentType: CONTENT_TYPES.svg,
    width: source.width,
    height: source.height,
    negotiated: false,
  };
}
