/**
 * q_auto's levels: the SSIMULACRA 2 score an output must reach (90 visually lossless, 80 very high,
 * 70 high, 60 between high and medium). `q_auto` alone is `good`.
 */
export const QUALITY_LEVELS = { best: 90, good: 80, eco: 70, low: 60 } as const;
export type QualityLevel = keyof typeof QUALITY_LEVELS;
export const DEFAULT_LEVEL: QualityLevel = "good";
