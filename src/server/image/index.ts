export type {
  FitMode,
  ImageOperations,
  MeasuredQuality,
  OutputFormat,
  TransformLimits,
  TransformResult,
} from "./types";
export {
  checkCombination,
  describesSourceOnly,
  KEEP_REDRAWN,
  keepsFromSource,
  parseOperations,
  canonicalOperations,
  operationNames,
} from "./operations/parse";
export { operationRegistry, type OperationName } from "./operations/registry";
export type { OperationSpec } from "./operations/value-parsers";
export {
  acceptClass,
  negotiateFormat,
  negotiatesFormat,
  type AcceptClass,
  type NegotiatedFormat,
  type SourceTraits,
} from "./negotiate";
export type { TransformRequest } from "./pipeline";
export {
  createTransformScheduler,
  type JobPriority,
  type SchedulerOptions,
  type JobOptions,
  type TransformScheduler,
} from "./transform-scheduler";
export type { TransformInput, Transformer } from "./transformer";
export { lazyEngine, type LazyEngine } from "./lazy-transform";
export { jobCost } from "./job-cost";
export { createResultCache, type ResultCache, type ResultCacheOptions } from "./result-cache";
export type { SharpSettings } from "./configure-sharp";
export { fontEnvironment } from "./fonts";
export { DEFAULT_TRANSFORM_LIMITS } from "./settings";
export { DEFAULT_QUALITY } from "./encode-options";
export { DEFAULT_LEVEL, QUALITY_LEVELS, type QualityLevel } from "./quality/levels";
export { qualityModeOf } from "./quality/quality-mode";
export { isSearchedFormat } from "./quality/auto-quality";
