import type { ImageOperations } from "../types";
import { DEFAULT_LEVEL } from "./levels";

/**
 * How an output's quality was chosen, as the usage page groups it: `f_best:{level}`, `q_auto:{level}`,
 * `maxbytes` (a byte budget), `placeholder`, or `fixed` (q_{n}, or the format's default). Read from the
 * operations as asked once the preset, the project's default mode and Save-Data are applied, so a URL
 * without q_ in a project whose default is q_auto counts as q_auto; an output the search cannot take
 * (PNG, GIF, an animation) counts under the mode it asked for, without a score.
 */
export function qualityModeOf(ops: ImageOperations): string {
  if (ops.placeholder) return "placeholder";
  if (ops.format === "best") return `f_best:${ops.qualityTarget ?? DEFAULT_LEVEL}`;
  if (ops.qualityTarget) return `q_auto:${ops.qualityTarget}`;
  if (ops.maxBytes !== undefined) return "maxbytes";
  return "fixed";
}
