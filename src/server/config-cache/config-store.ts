import type { ApiKeyConfig, ProjectConfig } from "./model";

/**
 * Read side of the configuration the data plane depends on. The database implementation reads
 * Postgres; the cache-aside implementation (L1 → Redis → Postgres) wraps it behind the same interface.
 */
export interface ConfigStore {
  getApiKey(publicKey: string): Promise<ApiKeyConfig | null>;
  getProject(projectId: string): Promise<ProjectConfig | null>;
}
