import type { ImageOperations, OutputFormat } from "./types";

/** What the Accept header allows, reduced to what f_auto looks at: enough to key an ETag by. */
export type AcceptClass = "avif" | "webp" | "other";

/** Source facts that change the choice; all are fixed for a given source, so the ETag stays request-only. */
export interface SourceTraits {
  hasAlpha?: boolean;
  /** More than one frame and a format that animates (GIF, WebP). */
  animated?: boolean;
}

export interface NegotiatedFormat {
  format: OutputFormat | "svg";
  /** True only for f_auto: the response varies by Accept. */
  negotiated: boolean;
}

/** Formats every browser displays: safe to answer with when Accept promised nothing. */
const UNIVERSAL: ReadonlySet<string> = new Set(["jpeg", "png", "gif"]);
/** Source formats kept as they are when no f_ is given (AVIF arrives from sharp as heif/av1; see inspect). */
const KEPT: ReadonlySet<string> = new Set(["jpeg", "png", "gif", "webp", "avif"]);

/**
 * Lists image/avif or image/webp with a non-zero q. Wildcards (`image/*`, `*\/*`) do not count: old
 * browsers send them without decoding either format.
 */
export function acceptClass(accept: string | null): AcceptClass {
  const types = acceptedTypes(accept);
  if (types.has("image/avif")) return "avif";
  if (types.has("image/webp")) return "webp";
  return "other";
}

function acceptedTypes(accept: string | null): Set<string> {
  const accepted = new Set<string>();
  for (const range of (accept ?? "").split(",")) {
    const [type = "", ...params] = range.split(";").map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    accepted.add(type);
  }
  return accepted;
}

/**
 * The output format for a request. `sourceFormat` is the detected format (jpeg, png, webp, gif, avif,
 * svg, heif, tiff…). An SVG with no operations at all passes through as SVG (the pipeline serves it
 * sanitised, svg-safety.ts); an SVG with any operation is rasterised, to PNG unless f_ says otherwise.
 */
export function negotiateFormat(
  ops: ImageOperations,
  accept: string | null,
  sourceFormat: string | undefined,
  traits: SourceTraits = {},
): NegotiatedFormat {
  // f_best starts from f_auto's answer; the pipeline then tries the other formats Accept allows.
  if (ops.format === "auto" || ops.format === "best")
    return { format: autoFormat(acceptClass(accept), sourceFormat, traits), negotiated: true };
  if (ops.format !== undefined) return { format: ops.format, negotiated: false };
  if (sourceFormat === "svg") {
    return { format: Object.keys(ops).length === 0 ? "svg" : "png", negotiated: false };
  }
  if (sourceFormat !== undefined && KEPT.has(sourceFormat)) {
    return { format: sourceFormat as OutputFormat, negotiated: false };
  }
  return { format: fallback(traits), negotiated: false };
}

/** f_auto and f_best: the answer depends on the Accept header (Vary: Accept, an ETag per class). */
export function negotiatesFormat(ops: Pick<ImageOperations, "format">): boolean {
  return ops.format === "auto" || ops.format === "best";
}

function autoFormat(accepts: AcceptClass, sourceFormat: string | undefined, traits: SourceTraits): OutputFormat {
  // AVIF output takes the first frame only, so an animation goes to WebP instead; every browser that
  // decodes AVIF decodes WebP, so this needs no more than the Accept class.
  if (accepts === "avif" && !traits.animated) return "avif";
  if (accepts !== "other") return "webp";
  if (sourceFormat !== undefined && UNIVERSAL.has(sourceFormat)) return sourceFormat as OutputFormat;
  return fallback(traits);
}

/** PNG keeps transparency (and suits a rasterised SVG); JPEG is smaller for everything else. */
function fallback(traits: SourceTraits): OutputFormat {
  return traits.hasAlpha ? "png" : "jpeg";
}
