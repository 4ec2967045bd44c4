import { AppError } from "@/server/errors";

/**
 * An SVG passed through untouched is served from our origin: opened directly (not through <img>) it is a
 * document that can run script in our origin's name. The route also sends `Content-Security-Policy:
 * default-src 'none'`; this check is the second layer. It is a deny-list over a normalised copy of the
 * text (entities expanded, numeric references decoded), so it refuses some harmless files: refusing is
 * the safe direction, and such files can still be rasterised with f_png.
 */
const ACTIVE_CONTENT: readonly RegExp[] = [
  /<\s*([\w.-]+:)?(script|foreignobject|iframe|embed|object|handler|listener)\b/i,
  // Event handler attributes (onload=, onclick=, …), with or without a namespace prefix.
  /[\s"'/:]on[a-z]+\s*=/i,
  /<\?xml-stylesheet/i,
  /<!ENTITY\s+(%\s*)?[\w.:-]+\s+(SYSTEM|PUBLIC)\b/i,
];
/** Checked with whitespace and control characters removed: `java\tscript:` is still a script URL. */
const SCRIPT_URL = /(javascript|vbscript|livescript):|data:(text\/html|application\/(xhtml|ecmascript|javascript))/i;
/** Expanding internal entities more than this is a billion-laughs file, not a picture. */
const MAX_EXPANSION = 4;

export function assertSafeSvg(svg: Buffer): void {
  const text = normalise(svg.toString("utf8"));
  const hit = ACTIVE_CONTENT.find((pattern) => pattern.test(text));
  if (hit || SCRIPT_URL.test(text.replace(/[\s\p{Cc}]+/gu, ""))) {
    throw new AppError("UNSUPPORTED_IMAGE", {
      message: "SVG with active content cannot be served as SVG; request a raster format (e.g. f_png)",
      detail: `svg refused: ${hit ? String(hit) : "script URL"}`,
    });
  }
}

function normalise(text: string): string {
  return decodeCharacterReferences(expandInternalEntities(text));
}

/** `<!ENTITY a "java">` then `&a;script:` would hide a script URL from a plain text search. */
function expandInternalEntities(text: string): string {
  const entities = new Map<string, string>();
  for (const match of text.matchAll(/<!ENTITY\s+([\w.:-]+)\s+(["'])([\s\S]*?)\2\s*>/gi)) {
    entities.set(match[1]!, match[3]!);
  }
  if (entities.size === 0) return text;
  let expanded = text;
  for (let round = 0; round < 3; round++) {
    expanded = expanded.replace(/&([\w.:-]+);/g, (whole, name: string) => entities.get(name) ?? whole);
    if (expanded.length > text.length * MAX_EXPANSION + 65536) {
      throw new AppError("UNSUPPORTED_IMAGE", { detail: "svg refused: entity expansion" });
    }
  }
  return expanded;
}

const NAMED: Record<string, string> = { colon: ":", tab: "\t", newline: "\n", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeCharacterReferences(text: string): string {
  return text
    .replace(/&#x0*([0-9a-f]{1,6});?/gi, (_, hex: string) => fromCodePoint(parseInt(hex, 16)))
    .replace(/&#0*([0-9]{1,7});?/g, (_, dec: string) => fromCodePoint(parseInt(dec, 10)))
    .replace(/&(colon|tab|newline|lt|gt|quot|apos);/gi, (_, name: string) => NAMED[name.toLowerCase()] ?? "");
}

function fromCodePoint(code: number): string {
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "";
}
