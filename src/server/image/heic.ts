import sharp from "sharp";
import { AppError } from "@/server/errors";
import { assertWithinLimits, inspectSource } from "./inspect-source";
import type { TransformLimits } from "./types";

/** What a HEIC source was, for `info` to describe it rather than the still it was turned into. */
export interface Original {
  format: "heic";
  bytes: number;
}

interface HeifImage {
  get_width(): number;
  get_height(): number;
  is_primary(): boolean;
  display(target: { data: Uint8ClampedArray; width: number; height: number }, done: (ok: unknown) => void): void;
  free(): void;
}
interface Libheif {
  HeifDecoder: new () => { decode(bytes: Buffer): HeifImage[] };
}

let libheif: Promise<Libheif> | undefined;
/** libheif's WebAssembly build (with libde265 for HEVC), loaded once per process, on the first HEIC. */
const loadLibheif = () =>
  (libheif ??= import("libheif-js/wasm-bundle.js").then((module) => (module.default ?? module) as Libheif));

/** ISO base media files start with a `ftyp` box: HEIF (HEIC or AVIF), and MP4 too, which sharp tells apart. */
const isIsoMedia = (input: Buffer) => input.length > 12 && input.toString("latin1", 4, 8) === "ftyp";

/**
 * A HEIC source (HEVC in HEIF: every iPhone photo) as an uncompressed TIFF of its primary image, which
 * the rest of the pipeline reads like any still; null for any other source. sharp's prebuilt libvips
 * has no HEVC decoder (a patent-encumbered codec it does not ship); libheif's WebAssembly build decodes
 * it here, in the transform process, after the header's size passed the pixel limit. Its decode is one
 * call no timeout interrupts: the process pool's kill at the budget is what stops it.
 */
export async function heicAsStill(input: Buffer, limits: TransformLimits): Promise<Buffer | null> {
  if (!isIsoMedia(input)) return null;
  const source = await inspectSource(input, limits);
  if (source.format !== "heic") return null;
  assertWithinLimits(source, 1, limits);
  const { HeifDecoder } = await loadLibheif();
  const images = new HeifDecoder().decode(input);
  try {
    const image = images.find((candidate) => candidate.is_primary()) ?? images[0];
    if (!image) throw new AppError("IMAGE_DECODE_FAILED", { detail: "HEIC without an image libheif could read" });
    const width = image.get_width();
    const height = image.get_height();
    // libheif's own reading of the size is what it will decode: hold it to the limit too.
    assertWithinLimits({ ...source, width, height }, 1, limits);
    const pixels = new Uint8ClampedArray(width * height * 4);
    const decoded = await new Promise<boolean>((resolve) =>
      image.display({ data: pixels, width, height }, (result) => resolve(result !== null)),
    );
    if (!decoded) throw new AppError("IMAGE_DECODE_FAILED", { detail: "libheif could not decode the HEIC" });
    const rgba = Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength);
    const raw = sharp(rgba, {
      raw: { width, height, channels: 4 },
      limitInputPixels: Math.floor(limits.maxInputPixels),
    });
    return await (source.hasAlpha ? raw : raw.removeAlpha()).tiff({ compression: "none" }).toBuffer();
  } finally {
    for (const image of images) image.free();
  }
}
