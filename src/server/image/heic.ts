import sharp from "sharp";
import { AppError } from "@/server/errors";
import { assertWithinLimits, inspectSource, type SourceInfo } from "./inspect-source";
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
  HeifDecoder: new () => { decoder: number | null; decode(bytes: Buffer): HeifImage[] };
  HEAPU8: Uint8Array;
  _heif_get_global_security_limits(): number;
  heif_context_free(context: number): void;
}

let libheif: Promise<Libheif> | undefined;
/** libheif's WebAssembly build (with libde265 for HEVC), loaded once per process, on the first HEIC. */
const loadLibheif = () =>
  (libheif ??= import("libheif-js/wasm-bundle.js").then((module) => (module.default ?? module) as Libheif));

/**
 * libheif's own limits (struct heif_security_limits, version 2 onward; new contexts copy the global
 * one) held to the pixel limit: every image it decodes, the grid's tiles and an alpha or depth image
 * included, not only the primary image's size that the header check reads. A 40 KB grid of 36
 * 8000² tiles decoded for 18 s, and a 160² image with a 16384² alpha image took 1 GB, before these.
 */
function limitLibheif(lib: Libheif, limits: TransformLimits): void {
  const at = lib._heif_get_global_security_limits();
  const memory = new DataView(lib.HEAPU8.buffer);
  const pixels = BigInt(Math.floor(limits.maxInputPixels));
  memory.setBigUint64(at + 8, pixels, true); // max_image_size_pixels
  memory.setBigUint64(at + 16, 4096n, true); // max_number_of_tiles
  memory.setUint32(at + 28, 1000, true); // max_items
  // Decoded planes of every image together: 4:4:4 at 16 bits is 6 bytes a pixel, RGBA 4 more.
  memory.setBigUint64(at + 64, pixels * 10n, true); // max_total_memory
}

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
  const lib = await loadLibheif();
  limitLibheif(lib, limits);
  const decoder = new lib.HeifDecoder();
  let images: HeifImage[] = [];
  const said = quiet();
  try {
    images = decoder.decode(input);
    return await stillOf(images, source, limits);
  } catch (error) {
    if (error instanceof AppError && error.code !== "IMAGE_DECODE_FAILED") throw error;
    // libheif's WebAssembly aborts on what it cannot handle (its memory spent, a corrupt stream).
    const reason = said.lines.at(-1) ?? (error instanceof Error ? error.message : "");
    throw new AppError("IMAGE_DECODE_FAILED", { detail: `libheif: ${reason}`.slice(0, 300), cause: error });
  } finally {
    said.restore();
    for (const image of images) image.free();
    // The context holds the whole file in WebAssembly memory, which never shrinks: free it every time.
    if (decoder.decoder) lib.heif_context_free(decoder.decoder);
  }
}

/**
 * libheif-js says why it failed with console.log, which would put lines of text among the server's
 * JSON log lines: while it decodes, they are kept for the error instead (the logger writes to stdout
 * itself, never through console.log).
 */
function quiet(): { lines: string[]; restore(): void } {
  const log = console.log;
  const lines: string[] = [];
  const said = (value: unknown) =>
    value !== null && typeof value === "object" && "message" in value ? String(value.message).trim() : null;
  console.log = (...values: unknown[]) => {
    const reason = values.map(said).find((text) => text !== null);
    lines.push(reason ?? values.filter((value) => typeof value === "string").join(" "));
  };
  return { lines, restore: () => void (console.log = log) };
}

async function stillOf(images: HeifImage[], source: SourceInfo, limits: TransformLimits): Promise<Buffer> {
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
  if (!decoded) throw new AppError("IMAGE_DECODE_FAILED", { detail: "the primary image did not decode" });
  const rgba = Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength);
  const raw = sharp(rgba, { raw: { width, height, channels: 4 }, limitInputPixels: Math.floor(limits.maxInputPixels) });
  return await (source.hasAlpha ? raw : raw.removeAlpha()).tiff({ compression: "none" }).toBuffer();
}
