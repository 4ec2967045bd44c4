// An Upstash-REST-compatible endpoint in front of a real redis-server or Redis Cluster, so the
// product's real @upstash/redis and @upstash/ratelimit clients can run locally and in tests.
// Development and tests only: it trusts its one token and keeps one shared Redis connection.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { RedisBackend } from "./backend";
import { createClusterBackend } from "./cluster-backend";
import { createCommandRunner } from "./command-runner";
import { createRequestHandler } from "./http-handler";
import { createOutageSwitch, type DownMode } from "./outage";
import { createScriptTranslator } from "./script-rewrite";
import { createSingleBackend, type RedisAddress } from "./single-backend";
import { createStats, type RedisRestStats } from "./stats";

export type { DownMode } from "./outage";
export type { EndpointKind, RedisRestStats } from "./stats";
export type { RedisAddress } from "./single-backend";

export interface RedisRestServerOptions {
  /** One redis-server, or the nodes of a Redis Cluster (any reachable subset; the rest are discovered). */
  redis: RedisAddress | { cluster: RedisAddress[] };
  /** The bearer token clients must send (`UPSTASH_REDIS_REST_TOKEN`). */
  token: string;
  /** Interface to listen on. @default "127.0.0.1" */
  host?: string;
  /** Port to listen on. @default 0 (a free port, read it from the result) */
  port?: number;
}

export interface RedisRestServer {
  /** `http://host:port`, ready for `UPSTASH_REDIS_REST_URL`. */
  url: string;
  port: number;
  stats(): RedisRestStats;
  resetStats(): void;
  /** Adds this many milliseconds before every request is handled; 0 turns it off. */
  setDelay(ms: number): void;
  /** Simulates an outage: `true`/`"refuse"` drops connections, `"hang"` never answers; `false` restores. */
  setDown(mode: boolean | DownMode): void;
  /** Stops listening, drops open connections and disconnects from Redis. */
  close(): Promise<void>;
}

function connectBackend(redis: RedisRestServerOptions["redis"]): Promise<RedisBackend> {
  return "cluster" in redis ? createClusterBackend(redis.cluster) : createSingleBackend(redis);
}

export async function createRedisRestServer(options: RedisRestServerOptions): Promise<RedisRestServer> {
  if (!options.token) throw new Error("createRedisRestServer: a non-empty token is required");
  const backend = await connectBackend(options.redis);
  const stats = createStats();
  const outage = createOutageSwitch();
  const handle = createRequestHandler({
    token: options.token,
    runner: createCommandRunner(backend, createScriptTranslator()),
    stats,
    outage,
  });

  const server = http.createServer((request, response) => void handle(request, response));
  server.on("connection", (socket) => outage.onConnection(socket));
  const host = options.host ?? "127.0.0.1";
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, host, resolve);
    });
  } catch (error) {
    await backend.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    stats: stats.snapshot,
    resetStats: stats.reset,
    setDelay: outage.setDelay,
    setDown: outage.setDown,
    async close() {
      outage.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets would otherwise hold close() open until they time out.
        server.closeAllConnections();
      });
      await backend.close();
    },
  };
}
