/** What the image route needs to know about an API key. The secret stays sealed until verification. */
export interface ApiKeyConfig {
  id: string;
  projectId: string;
  publicKey: string;
  encryptedSecret: string;
  expiresAt: Date | null;
  /** Revoked keys are returned, not hidden, so the route's revocation check is never dead code. */
  revokedAt: Date | null;
  rateLimitPerMinute: number;
  rateLimitPerDay: number;
}

export interface ProjectConfig {
  id: string;
  teamId: string;
  slug: string;
  allowedSourceHosts: string[];
  allowedRefererHosts: string[];
}

/**
 * Read side of the configuration the data plane depends on. The database implementation reads
 * Postgres; the cache-aside implementation (L1 → Redis → Postgres) wraps it behind the same interface.
 */
export interface ConfigStore {
  getApiKey(publicKey: string): Promise<ApiKeyConfig | null>;
  getProject(projectId: string): Promise<ProjectConfig | null>;
}

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 60;
export const DEFAULT_RATE_LIMIT_PER_DAY = 10_000;
