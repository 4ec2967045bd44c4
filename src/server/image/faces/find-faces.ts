import type { Size } from "../plan-geometry";
import { firstFrame } from "../render-image";
import { toImageError } from "../sharp-errors";
import type { TransformLimits } from "../types";
import { defaultFaceDetector, type Face, type FaceDetector } from "./detector";

/**
 * The faces in a source, in its pixels after EXIF orientation (as c_ counts them), most confident
 * first. The detector sees the first frame at its own side: a copy made by shrinking on load, so a
 * large JPEG costs a few milliseconds more than a small one, and the detector the same. A transparent
 * source is seen over white.
 */
export async function findFaces(
  input: Buffer,
  source: Size,
  limits: TransformLimits,
  detector: FaceDetector = defaultFaceDetector,
): Promise<Face[]> {
  const { data, info } = await smallCopy(input, detector.side, limits);
  if (info.channels !== 3) return [];
  const found = await detector.detect({ data, width: info.width, height: info.height });
  const scaleX = source.width / info.width;
  const scaleY = source.height / info.height;
  return found
    .map((face) => inSource(face, scaleX, scaleY, source))
    .filter((face) => face.width > 0 && face.height > 0)
    .sort((a, b) => b.score - a.score);
}

/** The first frame, upright, over white, at most `side` on its longer side; a bad source is the usual 422 or 504. */
async function smallCopy(input: Buffer, side: number, limits: TransformLimits) {
  try {
    return await firstFrame(input, limits)
      .resize(side, side, { fit: "inside" })
      .flatten({ background: "#ffffff" })
      .toColourspace("srgb")
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (error) {
    throw toImageError(error, "transform");
  }
}

/** A detection scaled to the source and clipped to it, in whole pixels. */
function inSource(face: Face, scaleX: number, scaleY: number, source: Size): Face {
  const left = Math.max(0, Math.round(face.left * scaleX));
  const top = Math.max(0, Math.round(face.top * scaleY));
  const right = Math.min(source.width, Math.round((face.left + face.width) * scaleX));
  const bottom = Math.min(source.height, Math.round((face.top + face.height) * scaleY));
  return { left, top, width: right - left, height: bottom - top, score: Math.round(face.score * 100) / 100 };
}
