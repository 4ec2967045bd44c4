export * from "./model";
export * from "./config-store";
export * from "./key-limits";
export { createDatabaseConfigStore } from "./database-store";
export { createMemoryTier, type CachedConfigStore, type MemoryTierOptions } from "./memory-tier";
export { createRedisTier } from "./redis-tier";
export { createConfigInvalidator, type ConfigInvalidator } from "./invalidate";
export { DEFAULT_WATERMARK_SETTINGS, readWatermarkSettings, type WatermarkConfig } from "./project-images";
