import {
  MAX_DIMENSION,
  MAX_PADDING,
  bare,
  box,
  decimal,
  integer,
  InvalidValue,
  oneOf,
  sides,
  type OperationSpec,
} from "./value-parsers";

/** sharp's own default: JPEG noise at the edges is still trimmed, a faint shadow is kept. */
export const DEFAULT_TRIM_THRESHOLD = 10;

const FITS = ["cover", "contain", "fill", "inside", "outside"] as const;
/** Compass gravities plus sharp's two smart-crop strategies; `centre` is accepted and stored as `center`. */
export const GRAVITIES = [
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
] as const;
/** Crop offsets and sizes: larger than any image libvips will load, small enough to stay integral. */
const MAX_CROP = 65535;

function point(value: string | undefined) {
  const parts = (value ?? "").split("_");
  if (parts.length !== 2) throw new InvalidValue();
  return { x: decimal(parts[0], 0, 1), y: decimal(parts[1], 0, 1) };
}

/** A later w_ replaces an earlier one whole, auto or not (the last token wins). */
function autoWidth(value: string | undefined) {
  if (value === "auto") return { autoWidth: true, width: undefined };
  if (value?.startsWith("auto_")) return { autoWidth: true, width: integer(value.slice(5), 1, MAX_DIMENSION) };
  return { width: integer(value, 1, MAX_DIMENSION), autoWidth: undefined };
}

function crop(value: string | undefined) {
  const parts = (value ?? "").split("_");
  if (parts.length !== 4) throw new InvalidValue();
  const [left, top, width, height] = parts;
  return {
    left: integer(left, 0, MAX_CROP),
    top: integer(top, 0, MAX_CROP),
    width: integer(width, 1, MAX_CROP),
    height: integer(height, 1, MAX_CROP),
  };
}

/** Size, framing and region tokens. */
export const resizeTokens = [
  {
    name: "w",
    syntax: `w_{1-${MAX_DIMENSION}} | w_auto | w_auto_{fallback}`,
    description:
      "Target width in pixels. With h, the image is fitted into the w×h box (see fit). w_auto takes the browser's Sec-CH-Width (rounded up to a step), else the fallback, else no width.",
    parse: (v) => autoWidth(v),
  },
  {
    name: "h",
    syntax: `h_{1-${MAX_DIMENSION}}`,
    description: "Target height in pixels. With w, the image is fitted into the w×h box (see fit).",
    parse: (v) => ({ height: integer(v, 1, MAX_DIMENSION) }),
  },
  {
    name: "s",
    syntax: `s_{W}x{H}`,
    description: "Box size, the same as w_W,h_H (each 1–8192).",
    parse: (v) => ({ ...box(v), autoWidth: undefined }),
  },
  {
    name: "fit",
    syntax: "fit_{cover|contain|fill|inside|outside}",
    description: "How the image fills a w×h box; default cover (crop to fill, see g).",
    parse: (v) => ({ fit: oneOf(v, FITS) }),
  },
  {
    name: "embed",
    syntax: "embed",
    description: "Letterbox: contain the image in the w×h box on the bg_ colour (default transparent, white for JPEG).",
    parse: (v) => ({ embed: bare(v) }),
  },
  {
    name: "dpr",
    syntax: "dpr_{1-4} | dpr_auto",
    description:
      "Device pixel ratio (decimals allowed): multiplies w and h, still capped by the maximum dimension. dpr_auto takes the browser's Sec-CH-DPR (rounded up to a step), else 1.",
    parse: (v) => (v === "auto" ? { autoDpr: true, dpr: undefined } : { dpr: decimal(v, 1, 4), autoDpr: undefined }),
  },
  {
    name: "g",
    syntax: "g_{center|north|northeast|east|southeast|south|southwest|west|northwest|attention|entropy|face|auto}",
    description:
      "Gravity: which part is kept by a cover crop, or where a contained image sits. attention/entropy pick the most interesting region; face keeps the faces found (as many as fit, the centre when none is); auto keeps the faces, else what attention picks. Replaces fp_.",
    parse: (v) => ({ gravity: oneOf(v === "centre" ? "center" : v, GRAVITIES), focus: undefined }),
  },
  {
    name: "fp",
    syntax: "fp_{x 0-1}_{y 0-1}",
    description:
      "Focal point: a cover crop keeps this point of the (EXIF-oriented) source, as fractions of its width and height, as near the middle as the image allows. For what a detector misses; replaces g_.",
    parse: (v) => ({ focus: point(v), gravity: undefined }),
  },
  {
    name: "c",
    syntax: "c_{left}_{top}_{width}_{height}",
    description: "Crop this region of the (EXIF-oriented) source before resizing; clipped to the image (0–65535 each).",
    parse: (v) => ({ crop: crop(v) }),
  },
  {
    name: "trim",
    syntax: "trim | trim_{0-255}",
    description: `Cut away borders of the top-left pixel's colour (within this threshold, default ${DEFAULT_TRIM_THRESHOLD}) before resizing; w and h then apply to what is left. A still image only; not with c_.`,
    parse: (v) => ({ trim: v === undefined ? DEFAULT_TRIM_THRESHOLD : integer(v, 0, 255) }),
  },
  {
    name: "pad",
    syntax: `pad_{0-${MAX_PADDING}} | pad_{top}_{right}_{bottom}_{left}`,
    description:
      "Padding around the output in pixels (× dpr), in bg_ (else transparent, or white without alpha); the output grows by it. Placeholders ignore it.",
    parse: (v) => ({ padding: sides(v) }),
  },
  {
    name: "enlarge",
    syntax: "enlarge",
    description: "Allow upscaling beyond the source size; without it images are never enlarged.",
    parse: (v) => ({ enlarge: bare(v) }),
  },
] as const satisfies readonly OperationSpec[];
