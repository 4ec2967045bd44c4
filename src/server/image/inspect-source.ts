import sharp, { type Metadata } from "sharp";
import { AppError } from "@/server/errors";
import { readSourceExif, type Attribution } from "./attribution";
import { toImageError } from "./sharp-errors";
import type { TransformLimits } from "./types";

/**
 * libvips' strictness when decoding. "error" refuses truncated files and real decode errors (422
 * instead of a half-grey image cached for a year) but tolerates mere warnings, such as the extraneous
 * bytes many cameras and editors leave in otherwise fine JPEGs, which sharp's default ("warning")
 * would refuse.
 */
export const FAIL_ON = "error" as const;

/**
 * Formats we decode. Everything else libvips can open (its own .v format, FITS, PPM, matrix, raw…) is
 * refused: less attack surface, and none of it belongs in an <img>.
 */
const DECODABLE: ReadonlySet<string> = new Set(["jpeg", "png", "webp", "gif", "avif", "heic", "tiff", "svg"]);
const HEIF_CODECS: Readonly<Record<string, string>> = { av1: "avif", hevc: "heic" };
/** Formats whose pages are animation frames (a multi-page TIFF or HEIF is a set of stills). */
const ANIMATABLE: ReadonlySet<string> = new Set(["gif", "webp"]);

export interface SourceInfo {
  /** Detected format; AVIF is told apart from other HEIF. */
  format: string;
  /** One frame, after EXIF orientation. */
  width: number;
  height: number;
  frames: number;
  animated: boolean;
  hasAlpha: boolean;
  /** EXIF Copyright and Artist: kept in the output when the rest of the metadata is stripped. */
  attribution?: Attribution;
  /** The EXIF block embeds a preview image (attribution.ts): no output may carry the block along. */
  exifPreview?: boolean;
  /** RGB pixels with an embedded colour profile: what cs_keep keeps (a CMYK one is converted). */
  rgbProfile?: boolean;
}

/** libvips' names for RGB pixels, as sharp's metadata reports them. */
const RGB_SPACES: ReadonlySet<string> = new Set(["srgb", "rgb", "rgb16", "scrgb"]);

/** Reads the header only (no pixel is decoded), so it is cheap even for a pixel bomb. */
export async function inspectSource(input: Buffer, limits: TransformLimits): Promise<SourceInfo> {
  if (input.length === 0) throw new AppError("UNSUPPORTED_IMAGE", { detail: "empty source" });
  let metadata: Metadata;
  try {
    metadata = await sharp(input, { limitInputPixels: Math.floor(limits.maxInputPixels), failOn: FAIL_ON }).metadata();
  } catch (error) {
    throw toImageError(error, "inspect");
  }
  // HEIF holds AVIF (AV1) or HEIC (HEVC); sharp's prebuilt libvips decodes only the former, and heic.ts
  // the latter. HEIF of any other codec is refused here (415) rather than failing later (422).
  const format =
    metadata.format === "heif" ? (HEIF_CODECS[String(metadata.compression)] ?? "heif") : String(metadata.format);
  if (!DECODABLE.has(format)) {
    throw new AppError("UNSUPPORTED_IMAGE", { detail: `source format ${format} ${metadata.compression ?? ""}`.trim() });
  }
  const frames = Math.max(1, metadata.pages ?? 1);
  const { attribution, preview } = readSourceExif(metadata.exif);
  return {
    format,
    width: metadata.autoOrient.width,
    height: metadata.autoOrient.height,
    frames,
    animated: frames > 1 && ANIMATABLE.has(format),
    hasAlpha: metadata.hasAlpha,
    ...(attribution ? { attribution } : {}),
    ...(preview ? { exifPreview: true } : {}),
    ...(metadata.hasProfile && RGB_SPACES.has(String(metadata.space)) ? { rgbProfile: true } : {}),
  };
}

/**
 * Checked before any pixel is decoded: the frames we will decode times the frame size, and the frame
 * count. Only decoded frames count, so the first frame of a long GIF (anim_false, JPEG output) is
 * still served; sharp's limitInputPixels repeats the pixel check inside libvips as a second guard.
 */
export function assertWithinLimits(
  source: SourceInfo,
  framesDecoded: number,
  limits: TransformLimits,
  embeddedPixels = 0,
): void {
  const pixels = source.width * source.height * framesDecoded + embeddedPixels;
  if (pixels > limits.maxInputPixels) {
    throw new AppError("IMAGE_TOO_LARGE", {
      detail: `${source.width}x${source.height}x${framesDecoded} + ${embeddedPixels} embedded = ${pixels} px > ${limits.maxInputPixels}`,
    });
  }
  if (framesDecoded > limits.maxFrames) {
    throw new AppError("IMAGE_TOO_LARGE", { detail: `${framesDecoded} frames > ${limits.maxFrames}` });
  }
}
