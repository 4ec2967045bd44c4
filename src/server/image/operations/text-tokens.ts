import { COMPASS_GRAVITIES } from "@/lib/compass";
import { MAX_WATERMARK_OFFSET } from "@/lib/schemas/watermark";
import type { TextFont, TextStyle } from "../types";
import { hexColour, integer, InvalidValue, oneOf, type OperationSpec } from "./value-parsers";

/** A caption, not a page: enough for a title, a price or a credit line, and a bounded layout. */
export const MAX_TEXT_CHARACTERS = 200;
/** UTF-8 needs at most four bytes a character: the encoded value is refused past this before decoding. */
const MAX_TEXT_BASE64 = Math.ceil((4 * MAX_TEXT_CHARACTERS * 4) / 3);
export const MIN_TEXT_SIZE = 8;
export const MAX_TEXT_SIZE = 256;
export const TEXT_FONTS = ["sans", "serif", "mono"] as const satisfies readonly TextFont[];

/** What txtstyle_ leaves out: white 32 px DejaVu Sans, 16 px in from the bottom-right corner, no box. */
export const TEXT_DEFAULTS: Omit<TextStyle, "box"> = {
  size: 32,
  colour: { r: 255, g: 255, b: 255, alpha: 1 },
  gravity: "southeast",
  x: 16,
  y: 16,
  font: "sans",
};

const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Controls other than a line break would reach the text engine as glyphs nobody can see or type. */
const CONTROL = /[\p{Cc}\p{Cs}]/u;
const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;

/**
 * The caption, base64url-encoded UTF-8 without padding (the only spelling: a URL path segment cannot
 * carry `,` `/` or `%` through every CDN unchanged, and one spelling keeps one variant per caption).
 */
export function captionText(value: string | undefined): string {
  if (value === undefined || !BASE64URL.test(value) || value.length > MAX_TEXT_BASE64) {
    throw new InvalidValue();
  }
  const bytes = Buffer.from(value, "base64url");
  // Buffer skips what it cannot read: only a value that encodes back to itself is the canonical spelling.
  if (bytes.toString("base64url") !== value) throw new InvalidValue();
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new InvalidValue();
  }
  const characters = [...text];
  if (characters.length === 0 || characters.length > MAX_TEXT_CHARACTERS) throw new InvalidValue();
  if (characters.some((character) => character !== "\n" && CONTROL.test(character))) throw new InvalidValue();
  // Something to see: a caption of spaces or zero-width characters would be refused by the text engine
  // only after the source was fetched.
  if (!VISIBLE.test(text)) throw new InvalidValue();
  return text;
}

/** Positional values in a fixed order, each optional from the right, as wm_ takes them. */
export function textStyle(value: string | undefined): Partial<TextStyle> {
  if (value === undefined) throw new InvalidValue();
  const parts = value.split("_");
  if (parts.length === 4 || parts.length > 7) throw new InvalidValue();
  const [size, colour, gravity, x, y, font, box] = parts;
  return {
    size: integer(size, MIN_TEXT_SIZE, MAX_TEXT_SIZE),
    ...(colour === undefined ? {} : { colour: hexColour(colour) }),
    ...(gravity === undefined ? {} : { gravity: oneOf(gravity === "centre" ? "center" : gravity, COMPASS_GRAVITIES) }),
    ...(x === undefined ? {} : { x: integer(x, 0, MAX_WATERMARK_OFFSET), y: integer(y, 0, MAX_WATERMARK_OFFSET) }),
    ...(font === undefined ? {} : { font: oneOf(font, TEXT_FONTS) }),
    ...(box === undefined ? {} : { box: hexColour(box) }),
  };
}

/** A caption drawn over the output, and how. */
export const textTokens = [
  {
    name: "txt",
    syntax: `txt_{base64url UTF-8, 1-${MAX_TEXT_CHARACTERS} characters}`,
    description:
      "A caption drawn over the output, above the watermark, after every other operation: the text is UTF-8 encoded as base64url without padding (the kits' textToken does it). Right-to-left scripts, combining marks and line breaks are laid out by the text engine; the text is drawn as typed, never read as markup. Long lines wrap within the output. A still image only.",
    parse: (v) => ({ text: captionText(v) }),
  },
  {
    name: "txtstyle",
    syntax: `txtstyle_{size ${MIN_TEXT_SIZE}-${MAX_TEXT_SIZE}}[_{colour}[_{gravity}[_{x 0-1000}_{y 0-1000}[_{font sans|serif|mono}[_{box colour}]]]]]`,
    description:
      "How txt_'s caption is drawn: size in output pixels (× dpr); colour as RRGGBB or RRGGBBAA; a compass gravity; x and y in from the edges it names (× dpr), as wm_ takes them; a bundled DejaVu face; and a box of that colour behind the text. Left out: 32, ffffff, southeast, 16_16, sans, no box.",
    parse: (v) => ({ textStyle: textStyle(v) }),
  },
] as const satisfies readonly OperationSpec[];
