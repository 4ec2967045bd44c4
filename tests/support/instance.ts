/**
 * One app instance in its own process, for multi-instance tests: the real services and route handler
 * behind a plain HTTP server, plus one admin route that does what the dashboard's revoke does (write
 * the database, then invalidate), one that purges as the dashboard does, and the metrics. Usage: tsx tests/support/instance.ts '<json config>'; prints "READY <port>".
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { apiKeys } from "@/server/db/schema";
import { createImageRouteHandler } from "@/server/http/image-route";
import { createLogger } from "@/server/log";
import { createServices } from "@/server/services";
import { purgeResults } from "@/server/tenancy/cache-purge";
import { openDatabase } from "@/server/db/client";
import { setupAudit } from "./audit";
import { redisSettings, testEnv, type TestRedis, type TestSettings } from "./settings";

interface InstanceConfig {
  databaseUrl: string;
  /** `databaseUrl` is a pooler in transaction mode (already migrated: nothing migrates through it). */
  pooled?: boolean;
  redis: TestRedis;
  master: string;
  /** The result store's settings (tests/support/s3.ts: storeEnv). */
  resultStore?: TestSettings;
  sourceCacheBytes?: number;
  transformQueue?: number;
}

const config = JSON.parse(process.argv[2]!) as InstanceConfig;
const services = await createServices(
  testEnv({
    OPTSTUFF_KEY_ENCRYPTION_SECRET: config.master,
    BETTER_AUTH_SECRET: "a",
    CRON_SECRET: "c",
    OPTSTUFF_MAX_SOURCE_BYTES: "5000000",
    OPTSTUFF_MAX_FRAMES: "100",
    OPTSTUFF_TRANSFORM_TIMEOUT_MS: "10000",
    OPTSTUFF_LOCAL_SOURCE_ROOT: undefined,
    OPTSTUFF_TRANSFORM_CONCURRENCY: "1",
    OPTSTUFF_TRANSFORM_QUEUE: String(config.transformQueue ?? 8),
    OPTSTUFF_RESULT_CACHE_BYTES: "1000000",
    OPTSTUFF_CONFIG_CACHE_TTL_MS: "1000", // the production default: the bound under test
    ...redisSettings(config.redis),
    ...(config.resultStore ?? {}),
    OPTSTUFF_SOURCE_CACHE_BYTES: String(config.sourceCacheBytes ?? 0),
  }),
  {
    database: await openDatabase({
      kind: "postgres",
      url: config.databaseUrl,
      maxConnections: 4,
      pooled: config.pooled,
      migrate: !config.pooled,
    }),
    logger: createLogger(process.env.INSTANCE_LOG === "warn" ? "warn" : "error"),
  },
);
const handler = createImageRouteHandler(async () => services);

const server = http.createServer((req, res) => void serve(req, res));

async function serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://instance");
  if (req.method === "POST" && url.pathname === "/admin/revoke") {
    const publicKey = url.searchParams.get("key")!;
    await services.database.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.publicKey, publicKey));
    await services.invalidate.apiKeys([publicKey]);
    res.writeHead(204).end();
    return;
  }
  if (req.method === "POST" && url.pathname === "/admin/purge") {
    // What the dashboard's purge does, for the project the test names.
    const scope = { teamId: url.searchParams.get("team")!, projectId: url.searchParams.get("project")! };
    const store = services.delivery.results?.store ?? null;
    const deps = {
      ...services.dashboard.tenancy,
      audit: setupAudit,
      store,
      logger: services.logger,
      publicNames: services.publicNames,
    };
    const purged = await purgeResults(deps, scope, {
      source: url.searchParams.get("source") ?? undefined,
      actorId: null,
    });
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(purged));
    return;
  }
  if (url.pathname === "/admin/metrics") {
    res
      .writeHead(200, { "Content-Type": services.usage.metrics.contentType })
      .end(await services.usage.metrics.render());
    return;
  }
  await handler.node(req, res);
}
server.listen(0, "127.0.0.1", () => console.log(`READY ${(server.address() as AddressInfo).port}`));
process.on("SIGTERM", () => {
  server.close();
  void services.close().finally(() => process.exit(0));
});
