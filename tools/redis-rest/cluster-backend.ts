// A Redis Cluster behind one ioredis Cluster client, presented as the single database Upstash shows.
import { Cluster, type Pipeline, type Redis } from "ioredis";
import { callRaw, runTransaction, settle, type RedisBackend } from "./backend";
import { findFanOut } from "./cluster-fan-out";
import { keySlots } from "./key-slots";
import type { RedisAddress } from "./single-backend";

const CROSSSLOT = "CROSSSLOT Keys in request don't hash to the same slot";

export async function createClusterBackend(nodes: RedisAddress[]): Promise<RedisBackend> {
  // RESP2 as Upstash answers (ioredis 6 defaults to RESP3).
  const cluster = new Cluster(nodes, { lazyConnect: true, redisOptions: { protocol: 2 } });
  cluster.on("error", () => {});
  await cluster.connect();

  // A stable order keeps composite SCAN cursors meaningful from one request to the next.
  const masters = (): Redis[] =>
    cluster
      .nodes("master")
      .sort((a, b) => `${a.options.host}:${a.options.port}`.localeCompare(`${b.options.host}:${b.options.port}`));

  return {
    send: ([name, ...args]) => {
      const fanOut = findFanOut(name, args);
      return settle(fanOut ? fanOut(masters(), args) : callRaw(cluster, [name, ...args]));
    },
    transaction: async (commands) => {
      // Redis Cluster runs a transaction only within one slot. ioredis would refuse keys on different
      // nodes with an error of its own; answer as Redis does, and touch no node.
      if (keySlots(commands).size > 1) return commands.map(() => ({ error: CROSSSLOT }));
      return runTransaction(cluster.multi() as unknown as Pipeline, commands);
    },
    close: async () => cluster.disconnect(),
  };
}
