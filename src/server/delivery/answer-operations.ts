import type { ProjectConfig } from "@/server/config-cache/model";
import type { ImageOperations } from "@/server/image";
import { applyClientHints } from "./client-hints";
import { withDefaultQuality, withoutSearch } from "./default-quality";
import { expandPreset } from "./presets";
import { placeWatermark } from "./watermark";

/** The operations a request's answers are made with, as the project and the browser make them. */
export interface AnswerOperations {
  /** The final answer's: the preset expanded, the project's default quality, the client hints, the watermark. */
  operations: ImageOperations;
  /**
   * The same URL without a quality search, hints and watermark applied alike: the interim answer's
   * (interim.ts), so that it is the fixed-quality URL's own variant, Save-Data included.
   */
  fixed: ImageOperations;
  /** Request headers the answer depends on: the response's Vary, and its Accept-CH. */
  hints: string[];
}

/** In the order each step needs the one before: what the URL names, then the project's defaults, then the browser's hints. */
export function answerOperations(
  asked: ImageOperations,
  project: Pick<ProjectConfig, "presets" | "presetsOnly" | "defaultQuality" | "watermark">,
  headers: Headers,
): AnswerOperations {
  const expanded = expandPreset(asked, project);
  const defaulted = withDefaultQuality(expanded, project);
  const unsearched = withoutSearch(defaulted);
  const hinted = applyClientHints(defaulted, headers);
  const fixedHinted = applyClientHints(unsearched, headers);
  return {
    operations: placeWatermark(hinted.operations, project),
    fixed: placeWatermark(fixedHinted.operations, project),
    hints: hinted.hints,
  };
}
