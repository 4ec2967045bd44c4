/**
 * Every Redis key the product writes, built here and nowhere else (docs/redis-schema.md lists each
 * one; a test fails when a builder is missing there). Keys that a script or transaction touches
 * together carry one hash tag `{…}` so the schema works unchanged on Redis Cluster.
 */
export interface KeySpec {
  prefix: string;
  ttl: string;
}

export const keySpecs = {
  projectConfig: { prefix: "cache:project:id:", ttl: "60 s (10 s for __NOT_FOUND__ and __INVALIDATED__)" },
  apiKeyConfig: { prefix: "cache:apikey:pk:", ttl: "60 s (10 s for __NOT_FOUND__ and __INVALIDATED__)" },
  rateLimitMinute: { prefix: "ratelimit:minute:", ttl: "2 windows of 60 s (set by @upstash/ratelimit)" },
  rateLimitQuarterHour: { prefix: "ratelimit:quarter-hour:", ttl: "2 windows of 15 min (set by @upstash/ratelimit)" },
  rateLimitHour: { prefix: "ratelimit:hour:", ttl: "2 windows of 60 min (set by @upstash/ratelimit)" },
  rateLimitDay: { prefix: "ratelimit:day:", ttl: "2 windows of 24 h (set by @upstash/ratelimit)" },
  rateLimitWarmUp: { prefix: "ratelimit:warmup:", ttl: "2 windows of 60 s (set by @upstash/ratelimit)" },
  apiKeyActivity: { prefix: "usage:apikey:", ttl: "30 s" },
  projectActivity: { prefix: "usage:project:", ttl: "30 s" },
  usageBucket: { prefix: "usage:buffer:minute:", ttl: "14 days" },
  usageFlushLock: { prefix: "usage:buffer:flush:lock", ttl: "55 s, extended while a flush runs" },
  requestLogFailures: { prefix: "log:failures:", ttl: "120 s" },
  requestLogSuccesses: { prefix: "log:successes:", ttl: "120 s" },
  transformLease: { prefix: "lease:transform:", ttl: "30 s, deleted by its owner once the result is stored" },
} as const satisfies Record<string, KeySpec>;

export const redisKeys = {
  projectConfig: (projectId: string) => `${keySpecs.projectConfig.prefix}${projectId}`,
  apiKeyConfig: (publicKey: string) => `${keySpecs.apiKeyConfig.prefix}${publicKey}`,
  /** The identifier as given to the limiter: the tag keeps both windows of one identifier in one slot. */
  rateLimitIdentifier: (identifier: string) => `{${identifier}}`,
  /** The limiter itself appends `:{window number}` to these. */
  rateLimitMinute: (identifier: string) => `${keySpecs.rateLimitMinute.prefix}{${identifier}}`,
  rateLimitQuarterHour: (identifier: string) => `${keySpecs.rateLimitQuarterHour.prefix}{${identifier}}`,
  rateLimitHour: (identifier: string) => `${keySpecs.rateLimitHour.prefix}{${identifier}}`,
  rateLimitDay: (identifier: string) => `${keySpecs.rateLimitDay.prefix}{${identifier}}`,
  rateLimitWarmUp: () => `${keySpecs.rateLimitWarmUp.prefix}{warmup}`,
  apiKeyActivity: (apiKeyId: string) => `${keySpecs.apiKeyActivity.prefix}${apiKeyId}`,
  projectActivity: (projectId: string) => `${keySpecs.projectActivity.prefix}${projectId}`,
  /**
   * One hash per UTC minute, `YYYYMMDDHHmm`; fields `{projectId}|{apiKeyId}|req` and `…|bytes` for each
   * answered request, `…|tf` for each transform (what spend caps count).
   */
  usageBucket: (at: Date) => `${keySpecs.usageBucket.prefix}${minuteStamp(at)}`,
  usageFlushLock: () => keySpecs.usageFlushLock.prefix,
  /** Failed requests of a project given a request-log row in one UTC minute, by the whole fleet. */
  requestLogFailures: (projectId: string, at: Date) =>
    `${keySpecs.requestLogFailures.prefix}${projectId}:${minuteStamp(at)}`,
  /** Successful requests of a project given a request-log row in one UTC minute, by the whole fleet. */
  requestLogSuccesses: (projectId: string, at: Date) =>
    `${keySpecs.requestLogSuccesses.prefix}${projectId}:${minuteStamp(at)}`,
  /** One per result being made somewhere (its result-store key): whoever holds it transforms, others wait for the store. */
  transformLease: (storeKey: string) => `${keySpecs.transformLease.prefix}${storeKey}`,
} as const satisfies Record<keyof typeof keySpecs | "rateLimitIdentifier", (...args: never[]) => string>;

/**
 * Whose window a rate-limit identifier names. One `ratelimit:minute:` / `ratelimit:day:` key space
 * holds every window; the identifier says whose it is and what it counts (docs/architecture.md, rate
 * limiting), so an address's two windows never share a counter, and neither meets a key's.
 */
export const rateLimitSubjects = {
  /** A key's transforms (minute and day): the public key itself, as the seed's schema had it. */
  keyTransforms: (publicKey: string) => publicKey,
  /** A client address's image requests, whatever they cost. */
  addressRequests: (address: string) => `addr:${address}`,
  /** A client address's transforms. */
  addressTransforms: (address: string) => `addr-transforms:${address}`,
  /** A signed-in account's dashboard changes (every tRPC mutation), by its user id. */
  userChanges: (userId: string) => `user-changes:${userId}`,
  /** A signed-in account's cache purges, counted besides its changes. */
  userPurges: (userId: string) => `user-purges:${userId}`,
  /** A signed-in account's slug availability checks (the team forms' live check). */
  userSlugChecks: (userId: string) => `user-slug-checks:${userId}`,
  /** A signed-in account's dashboard reads (every tRPC query). */
  userReads: (userId: string) => `user-reads:${userId}`,
  /** A signed-in account's reads of the logs and statistics (usage pages, request and audit logs). */
  userHeavyReads: (userId: string) => `user-heavy-reads:${userId}`,
  /** A signed-in account's CSV exports (each reads up to a year of rows). */
  userExports: (userId: string) => `user-exports:${userId}`,
  /** A team's uploaded images (watermarks, fallbacks), whoever of its admins sends them. */
  teamUploads: (teamId: string) => `team-uploads:${teamId}`,
} as const satisfies Record<string, (subject: string) => string>;

/**
 * Windows whose identifier names a client address (the per-address image windows, and better-auth's
 * per-address rules, which it keys by the address): anyone can bring new ones, so the in-process
 * limiter bounds how many it keeps. Keys and accounts are never dropped before their windows expire.
 */
export function isAddressSubject(identifier: string): boolean {
  return identifier.startsWith("addr:") || identifier.startsWith("addr-transforms:") || identifier.startsWith("auth:");
}

export function minuteStamp(at: Date): string {
  return at.toISOString().slice(0, 16).replace(/[-T:]/g, "");
}

export const TTL_SECONDS = {
  config: 60,
  configNotFound: 10,
  /** An invalidated entry's marker: longer than any load allowed to write back (redis-tier.ts). */
  configInvalidated: 10,
  activity: 30,
  usageBucket: 14 * 24 * 60 * 60,
  /** Both request-log row counters: a minute and its successor, then gone. */
  requestLogRows: 120,
} as const;
