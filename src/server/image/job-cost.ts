import { MAX_ENCODES } from "./quality/auto-quality";
import { facesWanted } from "./faces/subject-crop";
import type { ImageOperations } from "./types";

/** fit-bytes.ts: one encode, then up to three smaller ones. */
const BYTE_BUDGET_ENCODES = 4;

/**
 * What a transform will cost, in plain transforms, for the scheduler's turns (transform-scheduler.ts):
 * a perceptual search (q_auto, f_best) is up to MAX_ENCODES encodes, each scored, plus the rendering
 * they share; a byte budget is up to four encodes. Read from the operations as asked, before any work:
 * an upper bound, since a search may stop early.
 */
export function jobCost(ops: ImageOperations): number {
  return encodesOf(ops) + (facesWanted(ops) ? FACE_SEARCH : 0);
}

/**
 * Looking for faces costs about two plain transforms of 1 MP (bench:faces: 60 ms on top of 33), and
 * the first in a process loads the detector.
 */
const FACE_SEARCH = 2;

function encodesOf(ops: ImageOperations): number {
  if (ops.info || ops.placeholder) return 1;
  if (ops.qualityTarget || ops.format === "best") return 1 + MAX_ENCODES;
  if (ops.maxBytes !== undefined) return BYTE_BUDGET_ENCODES;
  return 1;
}
