import { COMPASS_GRAVITIES } from "@/lib/compass";
import { MAX_WATERMARK_OFFSET } from "@/lib/schemas/watermark";
import type { WatermarkPlacement } from "../types";
import { decimal, integer, InvalidValue, oneOf, type OperationSpec } from "./value-parsers";

/**
 * `wm`, or positional values in a fixed order (opacity, gravity, x and y together, scale), each
 * optional from the right: the project's settings fill what the URL leaves out.
 */
export function watermarkPlacement(value: string | undefined): WatermarkPlacement {
  if (value === undefined) return {};
  const parts = value.split("_");
  if (parts.length === 3 || parts.length > 5) throw new InvalidValue();
  const [opacity, gravity, x, y, scale] = parts;
  return {
    opacity: decimal(opacity, 0.05, 1),
    ...(gravity === undefined ? {} : { gravity: oneOf(gravity === "centre" ? "center" : gravity, COMPASS_GRAVITIES) }),
    ...(x === undefined ? {} : { x: integer(x, 0, MAX_WATERMARK_OFFSET), y: integer(y, 0, MAX_WATERMARK_OFFSET) }),
    ...(scale === undefined ? {} : { scale: watermarkScale(scale) }),
  };
}

/** 0 (its own size) or a share of the output's width from 0.05 to 1. */
export function watermarkScale(value: string | undefined): number {
  const scale = decimal(value, 0, 1);
  if (scale !== 0 && scale < 0.05) throw new InvalidValue();
  return scale;
}

/** Tokens drawn over the finished output. */
export const overlayTokens = [
  {
    name: "wm",
    syntax: "wm | wm_{opacity 0.05-1}[_{gravity}[_{x 0-1000}_{y 0-1000}[_{scale 0|0.05-1}]]]",
    description:
      "The project's watermark (uploaded in the dashboard) over the output, after every other operation; values left out come from the project's settings. Gravity is a compass point; x and y are output pixels (× dpr) in from the edges it names; scale is the watermark's width as a share of the output's (0 keeps its size). A still image only.",
    parse: (v) => ({ watermark: watermarkPlacement(v) }),
  },
] as const satisfies readonly OperationSpec[];
