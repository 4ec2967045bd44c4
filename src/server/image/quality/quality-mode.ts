import type { ImageOperations } from "../types";
import { DEFAULT_LEVEL } from "./levels";

/**
 * How an output's quality was chosen, as the usage page groups it: `f_best:{level}`, `q_auto:{level}`,
 * `maxbytes` (a byte budget), `placeholder`, or `fixed` (q_{n}, or the format's default). Read from the
 * operations as made (after the preset, the project's default mode and Save-Data), so a URL without q_
 * in a project whose default is q_auto counts as q_auto.
 */
export function qualityModeOf(ops: ImageOperations): string {
  if (ops.placeholder) return "placeholder";
  if (ops.format === "best") return `f_best:${ops.qualityTarget ?? DEFAULT_LEVEL}`;
  if (ops.qualityTarget) return `q_auto:${ops.qualityTarget}`;
  if (ops.maxBytes !== undefined) return "maxbytes";
  return "fixed";
}
