import type { QualityLevel } from "./quality/levels";
import type { CompassGravity } from "@/lib/compass";
import type { Face } from "./faces/detector";

export type { CompassGravity };
export type OutputFormat = "webp" | "avif" | "png" | "jpeg" | "gif";
export type FitMode = "cover" | "contain" | "fill" | "inside" | "outside";

/** Where and how the project's watermark goes; what the URL left out comes from the project's settings. */
export interface WatermarkPlacement {
  /** 0.05–1. */
  opacity?: number;
  gravity?: CompassGravity;
  /** Output pixels (× dpr) inward from the edges gravity names; along a centred axis, a shift right or down. */
  x?: number;
  y?: number;
  /** The watermark's width as a share of the output's (0.05–1); 0 keeps its own size. */
  scale?: number;
  /** The stored watermark's SHA-256, set by delivery (never by the URL), so a new upload makes new variants. */
  sha256?: string;
}

export type TextFont = "sans" | "serif" | "mono";

/** How txt_'s caption is drawn: every field is filled in by the parser, so equal looks share a variant. */
export interface TextStyle {
  /** Font size in output pixels before dpr. */
  size: number;
  colour: { r: number; g: number; b: number; alpha: number };
  gravity: CompassGravity;
  /** Output pixels (× dpr) in from the edges gravity names, as the watermark's offsets. */
  x: number;
  y: number;
  font: TextFont;
  /** A box drawn behind the text, so it reads on any picture; absent: none. */
  box?: { r: number; g: number; b: number; alpha: number };
}

/**
 * The normalised result of parsing the operations segment. Only fields a token set are present,
 * so two URLs with the same effect produce the same canonical string (see canonicalOperations).
 */
export interface ImageOperations {
  width?: number;
  height?: number;
  fit?: FitMode;
  quality?: number;
  /** q_auto: search the encoder quality for this perceptual level (src/server/image/quality/auto-quality.ts). */
  qualityTarget?: QualityLevel;
  /**
   * Explicit format, "auto" to negotiate from Accept, or "best" to encode what Accept allows and keep
   * the smallest that reaches q_auto's level. Absent = keep the source format.
   */
  format?: OutputFormat | "auto" | "best";
  embed?: boolean;
  dpr?: number;
  /** w_auto: the width comes from Sec-CH-Width when the browser sends it (width, if set, is the fallback). */
  autoWidth?: boolean;
  /** dpr_auto: the ratio comes from Sec-CH-DPR when the browser sends it (else 1). */
  autoDpr?: boolean;
  gravity?: string;
  /** fp_: the point (fractions of the source's width and height) a cover crop keeps, in place of g_. */
  focus?: { x: number; y: number };
  crop?: { left: number; top: number; width: number; height: number };
  /** Blocks of this many output pixels (× dpr), one colour each. */
  pixelate?: number;
  /** pr_{name}: the project's named operations, expanded by delivery before anything else reads them. */
  preset?: string;
  /** Answer the source's facts and placeholders as JSON instead of an image. */
  info?: boolean;
  /** Lower the quality (bounded steps) until a lossy output is at most this many bytes. */
  maxBytes?: number;
  /** Trim edges within this distance (0–255) of the top-left pixel's colour, before anything else. */
  trim?: number;
  /** Added around the output (CSS order, × dpr), in the background colour. */
  padding?: { top: number; right: number; bottom: number; left: number };
  background?: { r: number; g: number; b: number; alpha: number };
  blur?: number;
  sharpen?: number;
  rotate?: number;
  flip?: boolean;
  flop?: boolean;
  grayscale?: boolean;
  /** Multipliers (1 = unchanged) and a hue rotation in degrees: sharp's modulate. */
  brightness?: number;
  saturation?: number;
  hue?: number;
  enlarge?: boolean;
  /** wm: the project's watermark over the output, after every other operation. */
  watermark?: WatermarkPlacement;
  /** txt_: a caption drawn over the output, above the watermark (UTF-8, already decoded and bounded). */
  text?: string;
  /** txtstyle_: how the caption is drawn; the parser fills it in whenever text is set. */
  textStyle?: Partial<TextStyle>;
  animated?: boolean;
  placeholder?: boolean;
  /** meta_: keep all the source's metadata, or none; absent keeps the credit line (EXIF Copyright, Artist). */
  metadata?: "keep" | "strip";
  /** cs_: keep an RGB source's colour profile (wide gamut) rather than convert to sRGB, the default. */
  colourSpace?: "srgb" | "keep";
}

export interface TransformLimits {
  /** Input pixels over all frames. */
  maxInputPixels: number;
  /** Largest output width or height. */
  maxOutputDimension: number;
  /** Largest output area of one frame; larger results are scaled down to fit. */
  maxOutputPixels: number;
  /**
   * Largest AVIF output area: libheif's encode is one call that no timeout interrupts and costs about
   * 0.7 s per megapixel. f_auto answers WebP above it; f_avif is scaled down to it.
   */
  maxAvifPixels: number;
  /** Most animation frames decoded. */
  maxFrames: number;
  /** Transform budget; libvips is told to stop past it. */
  timeoutMs: number;
  /** WebP encoder effort 0–6, a CPU budget per image: lower is faster for a few percent more bytes. */
  webpEffort: number;
}

export interface TransformResult {
  body: Buffer;
  /** "svg" only for an SVG source passed through untouched; "json" for `info`. */
  format: OutputFormat | "svg" | "json";
  contentType: string;
  width: number;
  height: number;
  /** True when the format came from Accept (f_auto): the response must say Vary: Accept. */
  negotiated: boolean;
  /** What q_auto chose: the encoder quality and the SSIMULACRA 2 score its output reached. */
  measured?: MeasuredQuality;
  /** The faces g_face or g_auto looked for, in source pixels: `info` lists them. */
  faces?: Face[];
}

export interface MeasuredQuality {
  quality: number;
  score: number;
  /** The level is out of the format's reach on this image: the answer is its curve's knee (out-of-reach.ts). */
  unreached?: true;
}
