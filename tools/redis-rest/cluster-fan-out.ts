// Keyless commands that must reach every master for the cluster to look like one database, the way
// Upstash presents it: scripts are loaded everywhere, SCAN walks every node, sizes add up.
import { ReplyError, type Redis } from "ioredis";
import { callRaw } from "./backend";

type FanOut = (masters: Redis[], args: string[]) => Promise<unknown>;

const everyMaster = (masters: Redis[], command: [string, ...string[]]) =>
  Promise.all(masters.map((master) => callRaw(master, command)));

const broadcastOk =
  (name: string): FanOut =>
  async (masters, args) => {
    await everyMaster(masters, [name, ...args]);
    return "OK";
  };

/**
 * One SCAN cursor over all masters: cursor = nodeCursor × masters + masterIndex. Cursor 0 starts at
 * master 0; when a master's own SCAN ends, the walk moves to the next master with node cursor 0.
 */
const scanEveryMaster: FanOut = async (masters, [cursor = "0", ...options]) => {
  if (!/^\d+$/.test(cursor)) throw new ReplyError("ERR invalid cursor");
  const count = BigInt(masters.length);
  const index = Number(BigInt(cursor) % count);
  const master = masters[index];
  if (!master) throw new ReplyError("ERR invalid cursor");
  const [next, keys] = (await callRaw(master, ["SCAN", (BigInt(cursor) / count).toString(), ...options])) as [
    Buffer,
    unknown[],
  ];
  const nodeCursor = BigInt(next.toString());
  const composite =
    nodeCursor !== 0n ? nodeCursor * count + BigInt(index) : index + 1 < masters.length ? BigInt(index + 1) : 0n;
  return [composite.toString(), keys];
};

/** Keyed by upper-case name, or name and subcommand. */
const FAN_OUTS = {
  "SCRIPT LOAD": async (masters, args) => (await everyMaster(masters, ["SCRIPT", ...args]))[0],
  "SCRIPT FLUSH": broadcastOk("SCRIPT"),
  "SCRIPT EXISTS": async (masters, args) => {
    const perMaster = (await everyMaster(masters, ["SCRIPT", ...args])) as number[][];
    return (perMaster[0] ?? []).map((_, i) => (perMaster.every((answers) => answers[i] === 1) ? 1 : 0));
  },
  FLUSHALL: broadcastOk("FLUSHALL"),
  FLUSHDB: broadcastOk("FLUSHDB"),
  DBSIZE: async (masters, args) =>
    ((await everyMaster(masters, ["DBSIZE", ...args])) as number[]).reduce((a, b) => a + b, 0),
  KEYS: async (masters, args) => ((await everyMaster(masters, ["KEYS", ...args])) as unknown[][]).flat(),
  SCAN: scanEveryMaster,
} satisfies Record<string, FanOut>;

/** The fan-out for this command, or undefined when ioredis's routing by key (or any node) is right. */
export function findFanOut(name: string, args: string[]): FanOut | undefined {
  const table = FAN_OUTS as Record<string, FanOut>;
  const upper = name.toUpperCase();
  return table[`${upper} ${args[0]?.toUpperCase() ?? ""}`] ?? table[upper];
}
