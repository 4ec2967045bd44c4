import { DEFAULT_LEVEL, QUALITY_LEVELS } from "../quality/levels";
import { bare, hexColour, integer, oneOf, presetName, type OperationSpec } from "./value-parsers";

/** No image worth showing fits in under 1 KB; 10 MB is above any useful target. */
const MIN_MAX_BYTES = 1024;
const MAX_MAX_BYTES = 10 * 1024 * 1024;

const FORMATS = ["webp", "avif", "png", "jpg", "jpeg", "gif", "auto", "best"] as const;
const LEVELS = Object.keys(QUALITY_LEVELS) as (keyof typeof QUALITY_LEVELS)[];

/** Encoding and output-shape tokens. */
export const outputTokens = [
  {
    name: "q",
    syntax: "q_{1-100} | q_auto | q_auto:{best|good|eco|low}",
    description:
      "Quality for lossy formats (JPEG, WebP, AVIF); PNG and GIF ignore it. Defaults per format. With f_auto it is on the JPEG/WebP scale (an AVIF answer gets the quality that looks the same, ×5/8). q_auto finds, per image, the lowest quality whose output reaches a perceptual score (SSIMULACRA 2: best 90, good 80, eco 70, low 60; q_auto is good), in four encodes (six while the bracket is wide); a level out of reach is answered at its curve's knee and said so (unreached); an animation gets the format's default. A URL's first request gets the format's default quality for 60 s while the search runs after it (q_auto without the wait).",
    parse: (v) =>
      v === "auto" || v?.startsWith("auto:")
        ? { quality: undefined, qualityTarget: v === "auto" ? DEFAULT_LEVEL : oneOf(v.slice(5), LEVELS) }
        : { quality: integer(v, 1, 100), qualityTarget: undefined },
  },
  {
    name: "maxbytes",
    syntax: `maxbytes_{${MIN_MAX_BYTES}-${MAX_MAX_BYTES}}`,
    description:
      "Lower the quality in up to three steps (to 75, 50 and 30 % of it, not under 10) until a JPEG, WebP or AVIF output is at most this many bytes; if none fits, the smallest. PNG and GIF ignore it.",
    parse: (v) => ({ maxBytes: integer(v, MIN_MAX_BYTES, MAX_MAX_BYTES) }),
  },
  {
    name: "f",
    syntax: "f_{webp|avif|png|jpg|jpeg|gif|auto|best}",
    description:
      "Output format. auto picks AVIF, then WebP, from the Accept header, else a universal format. best encodes the formats the Accept header allows (AVIF and WebP, else JPEG or PNG; lossless WebP or PNG too for flat graphics) at q_auto's level (good unless q_auto or the project's default quality names one) and serves the smallest encode it has seen reach it (at most eight scored encodes, and one lossless encode for flat graphics), never larger than f_auto,q_auto's answer when that reaches the level; its first request gets f_auto's answer for 60 s while the search runs after it; it takes no q_{1-100} or maxbytes_. Absent: the source's format.",
    parse: (v) => {
      const format = oneOf(v, FORMATS);
      return { format: format === "jpg" ? "jpeg" : format };
    },
  },
  {
    name: "bg",
    syntax: "bg_{RRGGBB|RRGGBBAA}",
    description:
      "Background colour (hex): fills embed letterboxes, and transparent areas when opaque or when the output has no alpha.",
    parse: (v) => ({ background: hexColour(v) }),
  },
  {
    name: "anim",
    syntax: "anim_{true|false}",
    description:
      "Keep the frames of an animated source (default true, for GIF and WebP output); false gives the first frame.",
    parse: (v) => ({ animated: oneOf(v, ["true", "false"] as const) === "true" }),
  },
  {
    name: "meta",
    syntax: "meta_{keep|strip}",
    description:
      "Metadata in the output. By default only the source's EXIF Copyright and Artist are kept. keep: all of the source's EXIF (camera, GPS position, dates, its embedded preview of the whole original; Orientation reset, as the pixels are turned upright), XMP, and IPTC in JPEG; the pixels are still converted to sRGB, and the output is tagged sRGB. strip: none at all. keep is not with pixelate_ or a watermark (they redraw the pixels), nor with placeholder.",
    parse: (v) => ({ metadata: oneOf(v, ["keep", "strip"] as const) }),
  },
  {
    name: "cs",
    syntax: "cs_{srgb|keep}",
    description:
      "Colour space of the output. srgb (default): pixels converted from the source's embedded profile to sRGB, colours outside it clipped. keep: an RGB source's own profile (Display P3, Adobe RGB, Rec. 2020) is kept, its pixels unconverted and the output tagged with it, so wide-gamut colours survive where a browser shows them; CMYK and untagged sources, and GIF outputs (no place for a profile), are converted to sRGB as by default. keep is not with pixelate_ or a watermark (they redraw the pixels), nor with placeholder.",
    parse: (v) => ({ colourSpace: oneOf(v, ["srgb", "keep"] as const) }),
  },
  {
    name: "pr",
    syntax: "pr_{name}",
    description:
      "A preset: the project's named operations (dashboard → Presets). Other tokens in the URL override its values; one preset per URL.",
    parse: (v) => ({ preset: presetName(v) }),
  },
  {
    name: "info",
    syntax: "info",
    description:
      "Answer JSON about the source instead of an image: width, height, format, frames, alpha, bytes, dominant colour, ThumbHash and BlurHash. With other operations, also what they make under output: format, width, height, bytes, and q_auto's quality and score. Not with placeholder.",
    parse: (v) => ({ info: bare(v) }),
  },
  {
    name: "placeholder",
    syntax: "placeholder",
    description: "A tiny (at most 32 px) blurred still image for blur-up loading.",
    parse: (v) => ({ placeholder: bare(v) }),
  },
] as const satisfies readonly OperationSpec[];
