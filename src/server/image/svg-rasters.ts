import { SaxesParser } from "saxes";
import sharp, { type Metadata } from "sharp";
import { AppError } from "@/server/errors";

/** An SVG inside an SVG inside an SVG: past this depth the file is refused, not rendered. */
const MAX_DEPTH = 3;
/** Each embedded image is read for its header; a file with hundreds of them is not a picture. */
const MAX_EMBEDDED = 64;

/**
 * Pixels librsvg will decode for the rasters an SVG embeds as `data:` URIs (`<image>`, `<feImage>`,
 * any `href`/`xlink:href`). librsvg decodes them at their own size, outside the check on the SVG's
 * canvas, so a 100×100 SVG can carry a 10000×10000 PNG: these pixels count against the same input
 * limit (contract §5). External references need no counting: librsvg loads nothing without a base
 * URL, and sharp gives it none.
 *
 * Parsed with a real XML parser, not searched as text. Entity declarations are refused: an entity
 * could spell a data URI that only the renderer would see, and librsvg refuses to expand most of them.
 */
export async function embeddedRasterPixels(svg: Buffer, maxPixels: number, depth = 0): Promise<number> {
  if (depth >= MAX_DEPTH) throw refuse(`SVG images nested deeper than ${MAX_DEPTH}`);
  const uris = collectDataUris(svg.toString("utf8"));
  if (uris.length > MAX_EMBEDDED) throw refuse(`${uris.length} embedded images (at most ${MAX_EMBEDDED})`);
  let total = 0;
  for (const uri of uris) {
    total += await rasterPixels(await decodeDataUri(uri), maxPixels - total, depth);
    if (total > maxPixels) {
      throw new AppError("IMAGE_TOO_LARGE", { detail: `SVG embeds ${total} px of rasters > ${maxPixels}` });
    }
  }
  return total;
}

function collectDataUris(text: string): string[] {
  const uris: string[] = [];
  const parser = new SaxesParser({ xmlns: false, position: false });
  parser.on("doctype", (doctype) => {
    if (/<!ENTITY/i.test(doctype)) throw refuse("entity declarations in an SVG to rasterise");
  });
  parser.on("opentag", (tag) => {
    for (const [name, value] of Object.entries(tag.attributes)) {
      if ((name === "href" || name.endsWith(":href")) && /^\s*data:/i.test(value)) uris.push(value.trim());
    }
  });
  try {
    parser.write(text).close();
  } catch (cause) {
    if (cause instanceof AppError) throw cause;
    throw new AppError("IMAGE_DECODE_FAILED", { detail: "SVG is not well-formed XML", cause });
  }
  return uris;
}

/** The WHATWG data: URL parser (fetch's), not one of our own: base64, percent-encoding, media types. */
async function decodeDataUri(uri: string): Promise<Buffer> {
  try {
    return Buffer.from(await (await fetch(uri)).arrayBuffer());
  } catch (cause) {
    throw new AppError("IMAGE_DECODE_FAILED", { detail: "SVG embeds a malformed data: URI", cause });
  }
}

async function rasterPixels(bytes: Buffer, remaining: number, depth: number): Promise<number> {
  let meta: Metadata;
  try {
    // Header only; librsvg would refuse what libvips cannot read, so an unreadable one costs nothing.
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    return 0;
  }
  const own = (meta.width ?? 0) * (meta.height ?? 0) * Math.max(1, meta.pages ?? 1);
  if (meta.format !== "svg" || own > remaining) return own;
  return own + (await embeddedRasterPixels(bytes, remaining - own, depth + 1));
}

function refuse(detail: string): AppError {
  return new AppError("UNSUPPORTED_IMAGE", { message: "This SVG cannot be rasterised safely", detail });
}
