import type { ImageInfo, OutputInfo } from "@optstuff/client";
import { encode as encodeBlurHash } from "blurhash";
import type { Original } from "./heic";
import sharp from "sharp";
import { rgbaToThumbHash } from "thumbhash";
import { assertWithinLimits, inspectSource } from "./inspect-source";
import { firstFrame } from "./render-image";
import { paletteOf } from "./palette";
import { findFaces } from "./faces/find-faces";
import { toImageError } from "./sharp-errors";
import { embeddedRasterPixels } from "./svg-rasters";
import type { TransformLimits, TransformResult } from "./types";

/** ThumbHash takes at most 100×100. */
const HASH_SIDE = 100;
/**
 * BlurHash costs per pixel and component (25 ms at 100 px, measured): 4×3 components need no more
 * than 32 px, as its authors advise, which makes it about a tenth of that.
 */
const BLURHASH_SIDE = 32;

/**
 * The `info` operation: the source's facts and placeholders as JSON, made like an image (in the
 * transform process, cached and stored as a result) so it is signed, limited and metered the same.
 * Only the first frame is decoded, at most 100 px on its longer side; the placeholders and the palette
 * are computed from that copy.
 */
export async function describeImage(
  input: Buffer,
  limits: TransformLimits,
  {
    output,
    original,
    faces,
  }: {
    /** What the operations beside `info` make, when there are any. */
    output?: TransformResult;
    /** What the source was before the pipeline decoded it into `input` (a HEIC). */
    original?: Original;
    /** g_face or g_auto: list the faces (those the output's crop used, else looked for here). */
    faces?: boolean;
  } = {},
): Promise<TransformResult> {
  const source = await inspectSource(input, limits);
  const canvas = source.width * source.height;
  const embedded =
    source.format === "svg" && canvas <= limits.maxInputPixels
      ? await embeddedRasterPixels(input, limits.maxInputPixels - canvas)
      : 0;
  assertWithinLimits(source, 1, limits, embedded);
  try {
    const { data, info } = await firstFrame(input, limits)
      .resize(HASH_SIDE, HASH_SIDE, { fit: "inside" })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const raw = { raw: { width: info.width, height: info.height, channels: 4 as const } };
    const { dominant } = await sharp(data, raw).stats();
    const small = await sharp(data, raw)
      .resize(BLURHASH_SIDE, BLURHASH_SIDE, { fit: "inside" })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const described: ImageInfo = {
      width: source.width,
      height: source.height,
      format: original?.format ?? source.format,
      frames: source.frames,
      animated: source.animated,
      alpha: source.hasAlpha,
      bytes: original?.bytes ?? input.length,
      dominant: `#${[dominant.r, dominant.g, dominant.b].map((c) => c.toString(16).padStart(2, "0")).join("")}`,
      palette: paletteOf(data),
      thumbhash: Buffer.from(rgbaToThumbHash(info.width, info.height, data)).toString("base64"),
      blurhash: encodeBlurHash(
        new Uint8ClampedArray(small.data.buffer, small.data.byteOffset, small.data.length),
        small.info.width,
        small.info.height,
        4,
        3,
      ),
      ...(output ? { output: outputInfo(output) } : {}),
      ...(faces ? { faces: output?.faces ?? (await findFaces(input, source, limits)) } : {}),
    };
    return {
      body: Buffer.from(JSON.stringify(described)),
      format: "json",
      contentType: "application/json",
      width: source.width,
      height: source.height,
      // The output's format may follow Accept: then so does this answer.
      negotiated: output?.negotiated ?? false,
      ...(output?.measured ? { measured: output.measured } : {}),
    };
  } catch (error) {
    throw toImageError(error, "transform");
  }
}

function outputInfo(output: TransformResult): OutputInfo {
  const { format, width, height, body, measured } = output;
  return { format, width, height, bytes: body.length, ...(measured ?? {}) };
}
