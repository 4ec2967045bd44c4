import { bare, decimal, integer, oneOf, type OperationSpec } from "./value-parsers";

/** Default sigma of a bare `sharpen`: a mild, generally safe amount after downscaling. */
export const DEFAULT_SHARPEN_SIGMA = 1;

/** Orientation and filter tokens, applied after resizing. */
export const effectTokens = [
  {
    name: "r",
    syntax: "r_{0|90|180|270}",
    description: "Rotate clockwise by this many degrees, after resizing (w and h describe the image before rotation).",
    parse: (v) => ({ rotate: Number(oneOf(v, ["0", "90", "180", "270"] as const)) }),
  },
  {
    name: "flip",
    syntax: "flip",
    description: "Mirror vertically (top becomes bottom), after resizing and before rotation.",
    parse: (v) => ({ flip: bare(v) }),
  },
  {
    name: "flop",
    syntax: "flop",
    description: "Mirror horizontally (left becomes right), after resizing and before rotation.",
    parse: (v) => ({ flop: bare(v) }),
  },
  {
    name: "blur",
    syntax: "blur_{0.3-100}",
    description: "Gaussian blur with this sigma in output pixels.",
    parse: (v) => ({ blur: decimal(v, 0.3, 100) }),
  },
  {
    name: "sharpen",
    syntax: "sharpen | sharpen_{0.5-10}",
    description: `Sharpen with this sigma; bare sharpen uses ${DEFAULT_SHARPEN_SIGMA}.`,
    parse: (v) => ({ sharpen: v === undefined ? DEFAULT_SHARPEN_SIGMA : decimal(v, 0.5, 10) }),
  },
  {
    name: "brightness",
    syntax: "brightness_{0-10}",
    description: "Multiply brightness (1 unchanged, 0.5 half as bright, 2 twice).",
    parse: (v) => ({ brightness: decimal(v, 0, 10) }),
  },
  {
    name: "saturation",
    syntax: "saturation_{0-10}",
    description: "Multiply colour saturation (1 unchanged, 0 grey, 2 twice as vivid).",
    parse: (v) => ({ saturation: decimal(v, 0, 10) }),
  },
  {
    name: "hue",
    syntax: "hue_{0-359}",
    description: "Rotate hues by this many degrees around the colour wheel.",
    parse: (v) => ({ hue: integer(v, 0, 359) }),
  },
  {
    name: "pixelate",
    syntax: "pixelate_{2-256}",
    description:
      "Pixelate in square blocks of this many output pixels (× dpr), each about the average of what it covers; a still image only.",
    parse: (v) => ({ pixelate: integer(v, 2, 256) }),
  },
  {
    name: "grayscale",
    syntax: "grayscale",
    description: "Convert to shades of grey.",
    parse: (v) => ({ grayscale: bare(v) }),
  },
] as const satisfies readonly OperationSpec[];
