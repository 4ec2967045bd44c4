import { SaxesParser } from "saxes";
import sharp, { type Metadata } from "sharp";
import { AppError } from "@/server/errors";

/** An SVG inside an SVG inside an SVG: past this depth the file is refused, not rendered. */
const MAX_DEPTH = 3;
/** Embedded images over the whole file, nested ones included; each is read for its header. */
const MAX_EMBEDDED = 64;

interface Budget {
  pixels: number;
  images: number;
  readonly maxPixels: number;
}

/**
 * Pixels librsvg will decode for the rasters an SVG embeds as `data:` URIs (`<image>`, `<feImage>`,
 * any `href`/`xlink:href`). librsvg decodes them at their own size, outside the check on the SVG's
 * canvas, so a 100×100 SVG can carry a 10000×10000 PNG: these pixels count against the same input
 * limit (contract §5). Called only for an SVG about to be rasterised: one passed through is never
 * decoded here.
 *
 * Parsed with a real XML parser, not searched as text. What the count cannot see is refused instead:
 * a DOCTYPE with an internal subset (entities or attribute defaults could supply a data: URI only the
 * renderer sees), and `url(…)` references to anything but a fragment of this document (a data:
 * document holding a pattern or filter image). External references need no counting: librsvg loads
 * nothing without a base URL, and sharp gives it none.
 */
export async function embeddedRasterPixels(svg: Buffer, maxPixels: number): Promise<number> {
  const budget: Budget = { pixels: 0, images: 0, maxPixels };
  await countDocument(svg, budget, 0);
  return budget.pixels;
}

async function countDocument(svg: Buffer, budget: Budget, depth: number): Promise<void> {
  if (depth >= MAX_DEPTH) throw refuse(`SVG images nested deeper than ${MAX_DEPTH}`);
  for (const uri of collectDataUris(svg.toString("utf8"))) {
    if (++budget.images > MAX_EMBEDDED) throw refuse(`more than ${MAX_EMBEDDED} embedded images`);
    await countRaster(await decodeDataUri(uri), budget, depth);
  }
}

function collectDataUris(text: string): string[] {
  const uris: string[] = [];
  const parser = new SaxesParser({ xmlns: false, position: false });
  let inStyle = 0;
  parser.on("doctype", (doctype) => {
    if (doctype.includes("[")) throw refuse("a DOCTYPE with an internal subset in an SVG to rasterise");
  });
  parser.on("opentag", (tag) => {
    if (tag.name === "style" || tag.name.endsWith(":style")) inStyle++;
    for (const [name, value] of Object.entries(tag.attributes)) {
      assertLocalUrls(value);
      if ((name === "href" || name.endsWith(":href")) && isDataUrl(value)) uris.push(value.trim());
    }
  });
  parser.on("closetag", (tag) => {
    if (tag.name === "style" || tag.name.endsWith(":style")) inStyle--;
  });
  const styleText = (text: string) => {
    if (inStyle > 0) assertLocalUrls(text);
  };
  parser.on("text", styleText);
  parser.on("cdata", styleText);
  try {
    parser.write(text).close();
  } catch (cause) {
    if (cause instanceof AppError) throw cause;
    throw new AppError("IMAGE_DECODE_FAILED", { detail: "SVG is not well-formed XML", cause });
  }
  return uris;
}

/** As the URL parser librsvg uses reads it: tabs and newlines inside `da\tta:` do not hide the scheme. */
function isDataUrl(value: string): boolean {
  try {
    return new URL(value.trim()).protocol === "data:";
  } catch {
    return false; // relative: a fragment or a file, neither of which is loaded without a base URL
  }
}

/** `fill="url(#p)"` is a fragment of this document; `url(data:…#p)` is another document, uncounted. */
function assertLocalUrls(value: string): void {
  for (const match of value.matchAll(/url\s*\(\s*(['"]?)\s*([^'")]*)/gi)) {
    const target = match[2]!.replace(/[\t\n\r]/g, "");
    if (target !== "" && !target.startsWith("#")) throw refuse(`url(${target.slice(0, 40)}) outside the document`);
  }
}

/** The WHATWG data: URL parser (fetch's), not one of our own: base64, percent-encoding, media types. */
async function decodeDataUri(uri: string): Promise<Buffer> {
  try {
    return Buffer.from(await (await fetch(uri)).arrayBuffer());
  } catch (cause) {
    throw new AppError("IMAGE_DECODE_FAILED", { detail: "SVG embeds a malformed data: URI", cause });
  }
}

async function countRaster(bytes: Buffer, budget: Budget, depth: number): Promise<void> {
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (cause) {
    // librsvg decodes some formats libvips does not read (through gdk-pixbuf): what cannot be counted is refused.
    throw refuse("an embedded image that cannot be read", cause);
  }
  budget.pixels += (meta.width ?? 0) * (meta.height ?? 0) * Math.max(1, meta.pages ?? 1);
  if (budget.pixels > budget.maxPixels) {
    throw new AppError("IMAGE_TOO_LARGE", {
      detail: `SVG embeds ${budget.pixels} px of rasters > ${budget.maxPixels}`,
    });
  }
  if (meta.format === "svg") await countDocument(bytes, budget, depth + 1);
}

function refuse(detail: string, cause?: unknown): AppError {
  return new AppError("UNSUPPORTED_IMAGE", { message: "This SVG cannot be rasterised safely", detail, cause });
}
