import { base64url } from "./base64.js";

/**
 * A typed builder for the operations segment. Every value is checked against the same bounds the
 * server enforces, so a URL built here is never refused as INVALID_OPERATION; a bad value throws a
 * RangeError naming the option at build time, where the mistake is.
 */

export type Fit = "cover" | "contain" | "fill" | "inside" | "outside";
export type Gravity =
  | "center"
  | "north"
  | "northeast"
  | "east"
  | "southeast"
  | "south"
  | "southwest"
  | "west"
  | "northwest"
  | "attention"
  | "entropy"
  /** The faces found (as many as fit whole; the centre when none is). */
  | "face"
  /** The faces found, else what attention picks. */
  | "auto";
export type CompassGravity = Exclude<Gravity, "attention" | "entropy" | "face" | "auto">;
/**
 * The project's watermark (dashboard → Images). The URL's values are positional: a gravity needs an
 * opacity, an offset a gravity, a scale an offset; what is left out comes from the project's settings.
 */
export interface Watermark {
  /** 0.05–1. */
  opacity: number;
  gravity?: CompassGravity;
  /** Output pixels (× dpr) in from the edges gravity names, 0–1000 each. */
  offset?: { x: number; y: number };
  /** The watermark's width as a share of the output's, 0.05–1; 0 keeps its own size. */
  scale?: number;
}
/**
 * A caption drawn over the output (txt_, txtstyle_): 1–200 characters of UTF-8, drawn as typed.
 * A style value needs the ones before it on the URL; the kit writes their defaults for you.
 */
export interface Caption {
  text: string;
  /** Font size in output pixels (× dpr), 8–256. Default 32. */
  size?: number;
  /** `RRGGBB` or `RRGGBBAA` hex, with or without `#`. Default white. */
  colour?: string;
  /** Default southeast. */
  gravity?: CompassGravity;
  /** Output pixels (× dpr) in from the edges gravity names, 0–1000 each. Default 16, 16. */
  offset?: { x: number; y: number };
  /** A bundled DejaVu face. Default sans. */
  font?: "sans" | "serif" | "mono";
  /** A box of this colour behind the text (`RRGGBB` or `RRGGBBAA`). Default none. */
  box?: string;
}
export type Format = "webp" | "avif" | "png" | "jpeg" | "gif" | "auto" | "best";
/** q_auto's levels: the perceptual score an output must reach (best 90, good 80, eco 70, low 60). */
export type QualityLevel = "best" | "good" | "eco" | "low";

export interface Operations {
  /**
   * Target width, 1–8192 px; "auto" for the browser's Sec-CH-Width (rounded up to a step), with an
   * optional fallback for browsers that send no hint.
   */
  width?: number | "auto" | { auto: true; fallback: number };
  /** Target height, 1–8192 px. */
  height?: number;
  fit?: Fit;
  /** Letterbox into the width × height box on `background`. */
  embed?: boolean;
  /** Device pixel ratio 1–4 (up to 3 decimals): multiplies width and height on the server; "auto" for Sec-CH-DPR. */
  dpr?: number | "auto";
  gravity?: Gravity;
  /**
   * The point a cover crop keeps, as fractions (0–1, up to 3 decimals) of the source's width and
   * height: for what face detection misses. In place of gravity (both set: a RangeError).
   */
  focus?: { x: number; y: number };
  /** Region of the source cropped before resizing, in source pixels (0–65535; width/height ≥ 1). */
  crop?: { left: number; top: number; width: number; height: number };
  /** Allow upscaling. */
  enlarge?: boolean;
  /** Trim borders of the top-left pixel's colour: true for the default threshold, or 0–255. */
  trim?: boolean | number;
  /** Pixels (× dpr) added around the output, 0–256: one number for every side, or each side. */
  padding?: number | { top: number; right: number; bottom: number; left: number };
  /**
   * 1–100, for JPEG, WebP and AVIF; with format "auto", on the WebP scale (an AVIF answer gets × 5/8).
   * `"auto"` (good) or `{ auto: level }`: the lowest quality whose output reaches the level's score.
   */
  quality?: number | "auto" | { auto: QualityLevel };
  /** Lower the quality (up to three steps) until the output is at most this many bytes, 1024–10485760. */
  maxBytes?: number;
  format?: Format;
  /** `RRGGBB` or `RRGGBBAA` hex, with or without `#`. */
  background?: string;
  /** false: the first frame of an animation only. */
  animated?: boolean;
  /** A tiny blurred still for blur-up loading. */
  placeholder?: boolean;
  /** `"keep"`: all of the source's metadata (EXIF, GPS, XMP, IPTC); `"strip"`: none. Default: the credit line. */
  metadata?: "keep" | "strip";
  /** `"keep"`: an RGB source's own colour profile (Display P3, Adobe RGB), unconverted. Default `"srgb"`. */
  colourSpace?: "srgb" | "keep";
  /** A preset of the project (dashboard → Presets): its operations, which the others here override. */
  preset?: string;
  /** JSON about the source instead of an image (see info()); with other operations, also what they make. */
  info?: boolean;
  rotate?: 0 | 90 | 180 | 270;
  flip?: boolean;
  flop?: boolean;
  /** Gaussian blur sigma, 0.3–100. */
  blur?: number;
  /** true for the default sigma, or a sigma 0.5–10. */
  sharpen?: boolean | number;
  grayscale?: boolean;
  /** Square blocks of this many output pixels (× dpr), 2–256. */
  pixelate?: number;
  /** Brightness multiplier 0–10 (1 unchanged). */
  brightness?: number;
  /** Saturation multiplier 0–10 (1 unchanged, 0 grey). */
  saturation?: number;
  /** Hue rotation, integer degrees 0–359. */
  hue?: number;
  /** true: the project's watermark as its settings place it; or the placement for this URL. */
  watermark?: boolean | Watermark;
  /** A caption over the output, above the watermark: its text, or the text and how it is drawn. */
  text?: string | Caption;
}

const MAX_DIMENSION = 8192;
const MAX_CROP = 65535;
const MAX_PADDING = 256;
const FITS: readonly Fit[] = ["cover", "contain", "fill", "inside", "outside"];
const GRAVITIES: readonly Gravity[] = [
  "center",
  "north",
  "northeast",
  "east",
  "southeast",
  "south",
  "southwest",
  "west",
  "northwest",
  "attention",
  "entropy",
  "face",
  "auto",
];
const FORMATS: readonly Format[] = ["webp", "avif", "png", "jpeg", "gif", "auto", "best"];
const LEVELS: readonly QualityLevel[] = ["best", "good", "eco", "low"];

function integer(name: string, value: number, min: number, max: number): string {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  return String(value);
}

/** The server reads at most 3 decimals; more would be a different value than the one asked for. */
function decimal(name: string, value: number, min: number, max: number): string {
  if (!Number.isFinite(value) || value < min || value > max || Math.round(value * 1000) !== value * 1000) {
    throw new RangeError(`${name} must be a number from ${min} to ${max} with at most 3 decimals, got ${value}`);
  }
  return String(value);
}

function oneOf<T extends string>(name: string, value: T, options: readonly T[]): T {
  if (!options.includes(value))
    throw new RangeError(`${name} must be one of ${options.join(", ")}, got ${String(value)}`);
  return value;
}

function colour(value: string, name = "background"): string {
  const hex = value.replace(/^#/, "");
  if (!/^([0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/.test(hex))
    throw new RangeError(`${name} must be RRGGBB or RRGGBBAA hex, got ${value}`);
  return hex.toLowerCase();
}

/** One row per option, in the order tokens are written: [token, value → token value or null to omit]. */
const TOKENS: { [K in keyof Operations]-?: (value: NonNullable<Operations[K]>) => string | null } = {
  width: (v) =>
    v === "auto"
      ? "w_auto"
      : typeof v === "object"
        ? `w_auto_${integer("width.fallback", v.fallback, 1, MAX_DIMENSION)}`
        : `w_${integer("width", v, 1, MAX_DIMENSION)}`,
  height: (v) => `h_${integer("height", v, 1, MAX_DIMENSION)}`,
  fit: (v) => `fit_${oneOf("fit", v, FITS)}`,
  embed: (v) => (v ? "embed" : null),
  dpr: (v) => (v === "auto" ? "dpr_auto" : `dpr_${decimal("dpr", v, 1, 4)}`),
  gravity: (v) => `g_${oneOf("gravity", v, GRAVITIES)}`,
  focus: (v) => `fp_${decimal("focus.x", v.x, 0, 1)}_${decimal("focus.y", v.y, 0, 1)}`,
  crop: (v) =>
    `c_${integer("crop.left", v.left, 0, MAX_CROP)}_${integer("crop.top", v.top, 0, MAX_CROP)}_${integer("crop.width", v.width, 1, MAX_CROP)}_${integer("crop.height", v.height, 1, MAX_CROP)}`,
  enlarge: (v) => (v ? "enlarge" : null),
  trim: (v) => (v === false ? null : v === true ? "trim" : `trim_${integer("trim", v, 0, 255)}`),
  padding: (v) =>
    typeof v === "number"
      ? `pad_${integer("padding", v, 0, MAX_PADDING)}`
      : `pad_${(["top", "right", "bottom", "left"] as const).map((side) => integer(`padding.${side}`, v[side], 0, MAX_PADDING)).join("_")}`,
  quality: (v) =>
    v === "auto"
      ? "q_auto"
      : typeof v === "object"
        ? `q_auto:${oneOf("quality.auto", v.auto, LEVELS)}`
        : `q_${integer("quality", v, 1, 100)}`,
  maxBytes: (v) => `maxbytes_${integer("maxBytes", v, 1024, 10 * 1024 * 1024)}`,
  format: (v) => `f_${oneOf("format", v, FORMATS)}`,
  background: (v) => `bg_${colour(v)}`,
  animated: (v) => `anim_${v ? "true" : "false"}`,
  placeholder: (v) => (v ? "placeholder" : null),
  metadata: (v) => `meta_${oneOf("metadata", v, ["keep", "strip"] as const)}`,
  colourSpace: (v) => `cs_${oneOf("colourSpace", v, ["srgb", "keep"] as const)}`,
  info: (v) => (v ? "info" : null),
  preset: (v) => {
    if (!/^[a-z0-9][a-z0-9-]{0,31}$/.test(v))
      throw new RangeError(`preset must be 1–32 lower-case letters, digits and dashes, got ${v}`);
    return `pr_${v}`;
  },
  rotate: (v) => `r_${oneOf("rotate", String(v) as "0", ["0", "90", "180", "270"] as "0"[])}`,
  flip: (v) => (v ? "flip" : null),
  flop: (v) => (v ? "flop" : null),
  blur: (v) => `blur_${decimal("blur", v, 0.3, 100)}`,
  sharpen: (v) => (v === false ? null : v === true ? "sharpen" : `sharpen_${decimal("sharpen", v, 0.5, 10)}`),
  grayscale: (v) => (v ? "grayscale" : null),
  pixelate: (v) => `pixelate_${integer("pixelate", v, 2, 256)}`,
  brightness: (v) => `brightness_${decimal("brightness", v, 0, 10)}`,
  saturation: (v) => `saturation_${decimal("saturation", v, 0, 10)}`,
  hue: (v) => `hue_${integer("hue", v, 0, 359)}`,
  watermark: (v) => (v === false ? null : v === true ? "wm" : `wm_${watermarkValues(v).join("_")}`),
  text: (v) => captionTokens(typeof v === "string" ? { text: v } : v),
};

const MAX_CAPTION = 200;

/** The caption as base64url UTF-8 without padding, the one spelling the server takes. */
export function textToken(text: string): string {
  const characters = [...text];
  if (characters.length === 0 || characters.length > MAX_CAPTION)
    throw new RangeError(`text must be 1–${MAX_CAPTION} characters, got ${characters.length}`);
  if (!/[\p{L}\p{N}\p{P}\p{S}]/u.test(text))
    throw new RangeError("text must hold something to see: a letter, digit, punctuation mark or symbol");
  if (characters.some((c) => c !== "\n" && /[\p{Cc}\p{Cs}]/u.test(c)))
    throw new RangeError("text may hold line breaks but no other control characters");
  return `txt_${base64url(new TextEncoder().encode(text))}`;
}

function captionTokens(v: Caption): string {
  const text = textToken(v.text);
  const given = (["size", "colour", "gravity", "offset", "font", "box"] as const).filter((k) => v[k] !== undefined);
  if (given.length === 0) return text;
  // Positional on the URL: a value needs the ones before it, written here as the server's defaults.
  const style = [
    integer("text.size", v.size ?? 32, 8, 256),
    colour(v.colour ?? "ffffff", "text.colour"),
    oneOf("text.gravity", v.gravity ?? "southeast", GRAVITIES.slice(0, 9) as CompassGravity[]),
    integer("text.offset.x", v.offset?.x ?? 16, 0, 1000),
    integer("text.offset.y", v.offset?.y ?? 16, 0, 1000),
    oneOf("text.font", v.font ?? "sans", ["sans", "serif", "mono"] as const),
    ...(v.box === undefined ? [] : [colour(v.box, "text.box")]),
  ];
  const last = Math.max(...given.map((k) => ({ size: 1, colour: 2, gravity: 3, offset: 5, font: 6, box: 7 })[k]));
  return `${text},txtstyle_${style.slice(0, last).join("_")}`;
}

function watermarkValues(v: Watermark): string[] {
  const values = [decimal("watermark.opacity", v.opacity, 0.05, 1)];
  if (v.gravity === undefined) {
    if (v.offset !== undefined || v.scale !== undefined)
      throw new RangeError("watermark.offset and watermark.scale need watermark.gravity");
    return values;
  }
  values.push(oneOf("watermark.gravity", v.gravity, GRAVITIES.slice(0, 9) as CompassGravity[]));
  if (v.offset === undefined) {
    if (v.scale !== undefined) throw new RangeError("watermark.scale needs watermark.offset");
    return values;
  }
  values.push(integer("watermark.offset.x", v.offset.x, 0, 1000), integer("watermark.offset.y", v.offset.y, 0, 1000));
  if (v.scale === undefined) return values;
  if (v.scale !== 0 && v.scale < 0.05)
    throw new RangeError(`watermark.scale must be 0 or from 0.05 to 1, got ${v.scale}`);
  return [...values, decimal("watermark.scale", v.scale, 0, 1)];
}

/**
 * `{ width: 800, format: "webp" }` → `w_800,f_webp`; no operations → `_`. Tokens come in a fixed
 * order, so equal options give equal URLs (and equal cache keys). Unknown keys are refused.
 */
export function buildOperations(operations: Operations = {}): string {
  const tokens: string[] = [];
  for (const name of Object.keys(operations)) {
    if (!(name in TOKENS)) throw new RangeError(`unknown operation option ${name}`);
  }
  if (operations.gravity !== undefined && operations.focus !== undefined) {
    throw new RangeError("gravity and focus both choose what a crop keeps: give one");
  }
  for (const [name, toToken] of Object.entries(TOKENS) as [keyof Operations, (value: unknown) => string | null][]) {
    const value = operations[name];
    if (value === undefined) continue;
    const token = toToken(value);
    if (token !== null) tokens.push(token);
  }
  return tokens.length === 0 ? "_" : tokens.join(",");
}
