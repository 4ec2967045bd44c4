import sharp, { type Metadata } from "sharp";
import { FAIL_ON, type SourceInfo } from "../inspect-source";
import { acceptClass, negotiateFormat } from "../negotiate";
import { describesSourceOnly } from "../operations/parse";
import { facesWanted } from "../faces/subject-crop";
import { planGeometry } from "../plan-geometry";
import type { TransformRequest } from "../pipeline";
import type { ImageOperations, TransformLimits } from "../types";
import { countJpegScans } from "./jpeg-scans";

/**
 * What a transform in the server's own process may be. Past any of these a native call can hold a libuv
 * thread for seconds or take hundreds of MB, which only a process of its own can be stopped from doing.
 * Decoded bytes: the frame as libvips holds it whole (channels × bytes a sample), twice for a
 * progressive JPEG (libjpeg's coefficients) or an interlaced PNG, twice again for an operation that
 * needs the whole frame (a quarter turn, a blur, a trim). Output pixels: what one encode makes;
 * AVIF costs about 0.45 s a megapixel at effort 2 in one uninterruptible call, and a searched quality
 * (q_auto, f_best, mb_) encodes several times.
 */
export const IN_PROCESS = {
  maxInputPixels: 24_000_000,
  maxDecodedBytes: 128 * 2 ** 20,
  /** libjpeg's and mozjpeg's progressions have about ten; a scan bomb has thousands. */
  maxJpegScans: 24,
  maxOutputPixels: 8_000_000,
  maxAvifOutputPixels: 1_000_000,
  maxSearchedOutputPixels: 2_000_000,
} as const;

export type Placement = { where: "in-process" } | { where: "isolated"; reason: string };

export type PlaceTransform = (
  input: Buffer,
  ops: ImageOperations,
  request: TransformRequest,
  limits: TransformLimits,
) => Promise<Placement>;

/** Stills whose decoders stream or are bounded by their pixels, told by their first bytes. */
const STILL_FORMATS: ReadonlyArray<{ format: string; is: (b: Buffer) => boolean }> = [
  { format: "jpeg", is: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { format: "png", is: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { format: "webp", is: (b) => b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP" },
  { format: "gif", is: (b) => b.toString("latin1", 0, 4) === "GIF8" },
];

const isolated = (reason: string): Placement => ({ where: "isolated", reason });

/**
 * Where a transform may run, from the source's header and the operations alone (no pixel decoded):
 * in this process only when nothing in it can run away. SVG, AVIF/HEIF, TIFF, animation, a JPEG of
 * many scans, large inputs and outputs, and whatever the check cannot read go to a transform process.
 */
export const placeTransform: PlaceTransform = async (input, ops, request, limits) => {
  const format = STILL_FORMATS.find((still) => still.is(input))?.format;
  if (!format) return isolated("format");
  let metadata: Metadata;
  try {
    // Header only: the pixel limits are the transform's to enforce, wherever it runs.
    metadata = await sharp(input, { limitInputPixels: false, failOn: FAIL_ON }).metadata();
  } catch {
    return isolated("unreadable");
  }
  if ((metadata.pages ?? 1) > 1) return isolated("animation");
  const pixels = metadata.width * metadata.height;
  if (pixels > IN_PROCESS.maxInputPixels) return isolated("input pixels");
  const sample = metadata.depth === "uchar" ? 1 : 2;
  const copies = (metadata.isProgressive ? 2 : 1) * (holdsWholeFrame(ops) ? 2 : 1);
  if (pixels * metadata.channels * sample * copies > IN_PROCESS.maxDecodedBytes) return isolated("decoded bytes");
  // Every JPEG, not the progressive ones only: a sequential one may carry more scans than it declares.
  if (format === "jpeg") {
    const scans = countJpegScans(input, IN_PROCESS.maxJpegScans);
    if (scans === null || scans > IN_PROCESS.maxJpegScans) return isolated("jpeg scans");
  }
  const source: SourceInfo = {
    format,
    width: metadata.autoOrient.width,
    height: metadata.autoOrient.height,
    frames: 1,
    animated: false,
    hasAlpha: metadata.hasAlpha,
  };
  return placeOutput(source, ops, request, limits);
};

/** Operations libvips cannot stream a line at a time: it holds the frame whole beside its decode. */
function holdsWholeFrame(ops: ImageOperations): boolean {
  return (ops.rotate ?? 0) % 180 !== 0 || ops.blur !== undefined || ops.trim !== undefined;
}

function placeOutput(
  source: SourceInfo,
  ops: ImageOperations,
  request: TransformRequest,
  limits: TransformLimits,
): Placement {
  // The face detector (TensorFlow.js and its weights: 127 MB of RSS once loaded, bench:faces) stays out of
  // the server.
  if (facesWanted(ops)) return isolated("faces");
  if (ops.info && describesSourceOnly(ops)) return { where: "in-process" };
  let outputPixels: number;
  try {
    const geometry = { source, ops, maxOutputDimension: limits.maxOutputDimension, keepFrames: false };
    outputPixels = planGeometry({ ...geometry, maxOutputPixels: limits.maxOutputPixels }).outputPixels;
  } catch {
    return isolated("unreadable");
  }
  if (outputPixels > IN_PROCESS.maxOutputPixels) return isolated("output pixels");
  const avif =
    negotiateFormat(ops, request.accept, source.format, source).format === "avif" ||
    (ops.format === "best" && acceptClass(request.accept) === "avif");
  if (avif && outputPixels > IN_PROCESS.maxAvifOutputPixels) return isolated("avif output");
  const searched = ops.format === "best" || ops.qualityTarget !== undefined || ops.maxBytes !== undefined;
  if (searched && outputPixels > IN_PROCESS.maxSearchedOutputPixels) return isolated("searched output");
  return { where: "in-process" };
}
