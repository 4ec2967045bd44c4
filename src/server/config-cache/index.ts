export * from "./types";
export { createDatabaseConfigStore } from "./database-store";
export { createMemoryTier, type CachedConfigStore, type MemoryTierOptions } from "./memory-tier";
