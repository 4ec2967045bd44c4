// `npm run redis:local [-- --cluster]`: a throwaway redis-server (or 3-master cluster) plus the
// Upstash-compatible endpoint in front of it, until Ctrl-C. Prints the variables the app reads: the
// endpoint's pair, and REDIS_URL for the same server over TCP.
import { randomBytes } from "node:crypto";
import { startRedisCluster, startRedisServer } from "./redis-process";
import { createRedisRestServer } from "./server";

const cluster = process.argv.includes("--cluster");
// Fixed values let a developer keep them in .env.local across restarts; random ones are the default.
const token = process.env.REDIS_REST_TOKEN || randomBytes(24).toString("base64url");
const port = Number(process.env.REDIS_REST_PORT ?? 0);

const redis = cluster ? await startRedisCluster({ masters: 3 }) : await startRedisServer();
const endpoint = await createRedisRestServer({
  redis:
    "nodes" in redis
      ? { cluster: redis.nodes.map(({ host, port }) => ({ host, port })) }
      : { host: redis.host, port: redis.port },
  token,
  port,
}).catch(async (error: unknown) => {
  await redis.stop();
  throw error;
});

const pids = "nodes" in redis ? redis.nodes.map((node) => node.pid).join(", ") : String(redis.pid);
console.error(`redis-server pid ${pids}; endpoint ready. Ctrl-C stops both.`);
console.log(`UPSTASH_REDIS_REST_URL=${endpoint.url}`);
console.log(`UPSTASH_REDIS_REST_TOKEN=${token}`);
// The same server over TCP (a cluster is reached through the endpoint only).
if (!("nodes" in redis)) console.log(`REDIS_URL=redis://${redis.host}:${redis.port}`);

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  await endpoint.close();
  await redis.stop();
  process.exit(0);
}
process.on("SIGINT", () => void shutdown());
process.on("SIGTERM", () => void shutdown());
