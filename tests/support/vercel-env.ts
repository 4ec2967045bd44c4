/** What a deployment on Vercel has when it is set up as docs/self-hosting.md says (values are placeholders). */
export const vercelEnv: Record<string, string> = {
  VERCEL: "1",
  NODE_ENV: "production",
  DATABASE_URL: "postgres://user:password@db.example/optstuff",
  UPSTASH_REDIS_REST_URL: "https://redis.example",
  UPSTASH_REDIS_REST_TOKEN: "token",
  CRON_SECRET: "c".repeat(32),
  OPTSTUFF_METRICS_TOKEN: "m".repeat(32),
  OPTSTUFF_KEY_ENCRYPTION_SECRET: "k".repeat(32),
  BETTER_AUTH_SECRET: "a".repeat(32),
};
