/**
 * One app instance in its own process, for multi-instance tests: the real services and route handler
 * behind a plain HTTP server, plus one admin route that does what the dashboard's revoke does (write
 * the database, then invalidate), one that purges as the dashboard does, and the metrics. Usage: tsx tests/support/instance.ts '<json config>'; prints "READY <port>".
 */
import { DEFAULT_TRANSFORM_LIMITS } from "@/server/image/settings";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { apiKeys } from "@/server/db/schema";
import { createImageRouteHandler } from "@/server/http/image-route";
import { createLogger } from "@/server/log";
import type { ResultStoreSettings } from "@/server/result-store/types";
import { createServices } from "@/server/services";
import { purgeResults } from "@/server/tenancy/cache-purge";
import { testTransformIsolation } from "./app";
import { setupAudit } from "./audit";

interface InstanceConfig {
  databaseUrl: string;
  redis: { url: string; token: string };
  master: string;
  resultStore?: ResultStoreSettings;
  sourceCacheBytes?: number;
  transformQueue?: number;
}

const config = JSON.parse(process.argv[2]!) as InstanceConfig;
const services = await createServices({
  database: { kind: "postgres", url: config.databaseUrl, maxConnections: 4 },
  secrets: { keyEncryption: config.master, keyEncryptionPrevious: undefined, auth: "a", cron: "c" },
  fetchLimits: { maxBytes: 5_000_000, timeoutMs: 5000, maxRedirects: 3, allowLoopback: true },
  transformLimits: { ...DEFAULT_TRANSFORM_LIMITS, maxFrames: 100, timeoutMs: 10_000 },
  localSourceRoot: null,
  transformConcurrency: 1,
  transformIsolation: testTransformIsolation(),
  transformQueue: config.transformQueue ?? 8,
  resultCacheBytes: 1_000_000,
  configCacheTtlMs: 1000, // the production default: the bound under test
  redis: config.redis,
  authFailuresPerMinute: 1000,
  logger: createLogger(process.env.INSTANCE_LOG === "warn" ? "warn" : "error"),
  resultStore: config.resultStore ?? null,
  sourceCacheBytes: config.sourceCacheBytes ?? 0,
});
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
    const store = services.results?.store ?? null;
    const deps = {
      ...services.tenancy,
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
    res.writeHead(200, { "Content-Type": services.metrics.contentType }).end(await services.metrics.render());
    return;
  }
  await handler.node(req, res);
}
server.listen(0, "127.0.0.1", () => console.log(`READY ${(server.address() as AddressInfo).port}`));
process.on("SIGTERM", () => {
  server.close();
  void services.close().finally(() => process.exit(0));
});
