import { randomBytes } from "node:crypto";
import { startRedisCluster, startRedisServer } from "../../tools/redis-rest/redis-process";
import { createRedisRestServer, type RedisRestServer } from "../../tools/redis-rest/server";

export interface RealRedis {
  endpoint: RedisRestServer;
  /** Through the Upstash-compatible endpoint. */
  settings: { transport: "rest"; url: string; token: string };
  /** The same server over TCP (REDIS_URL); null for a cluster (TCP reaches a single server). */
  tcp: { transport: "tcp"; url: string } | null;
  stop(): Promise<void>;
}

/** A real redis-server (or a 3-master cluster) behind the project's Upstash-compatible endpoint. */
export async function startRealRedis(options: { cluster?: boolean } = {}): Promise<RealRedis> {
  const token = randomBytes(16).toString("hex");
  if (options.cluster) {
    const cluster = await startRedisCluster({ masters: 3 });
    const endpoint = await createRedisRestServer({
      redis: { cluster: cluster.nodes.map((n) => ({ host: n.host, port: n.port })) },
      token,
    });
    return {
      endpoint,
      settings: { transport: "rest", url: endpoint.url, token },
      tcp: null,
      stop: async () => (await endpoint.close(), await cluster.stop()),
    };
  }
  const server = await startRedisServer();
  const endpoint = await createRedisRestServer({ redis: { host: server.host, port: server.port }, token });
  return {
    endpoint,
    settings: { transport: "rest", url: endpoint.url, token },
    tcp: { transport: "tcp", url: `redis://${server.host}:${server.port}` },
    stop: async () => (await endpoint.close(), await server.stop()),
  };
}
