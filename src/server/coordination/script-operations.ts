import {
  CLAIM_SCRIPT,
  countersFrom,
  DELETE_IF_EQUALS_SCRIPT,
  EXPIRE_IF_EQUALS_SCRIPT,
  INCREMENT_SCRIPT,
  RELEASE_SCRIPT,
} from "./redis-scripts";
import type { KeyValue } from "./types";

/** The product's one-key scripts, by name (redis-scripts.ts). */
export const SCRIPTS = {
  claim: CLAIM_SCRIPT,
  release: RELEASE_SCRIPT,
  deleteIfEquals: DELETE_IF_EQUALS_SCRIPT,
  expireIfEquals: EXPIRE_IF_EQUALS_SCRIPT,
  increment: INCREMENT_SCRIPT,
} as const;

export type ScriptName = keyof typeof SCRIPTS;

/** Runs a script on one key with its arguments, however the client reaches Redis. */
export type RunScript = (name: ScriptName, key: string, args: string[]) => Promise<unknown>;

type ScriptOperations = Pick<
  KeyValue,
  "increment" | "deleteIfEquals" | "expireIfEquals" | "claimHashes" | "releaseClaims"
>;

/**
 * The KeyValue operations that are scripts, the same over REST (upstash-key-value.ts) and TCP
 * (tcp-key-value.ts): only how a script is run differs.
 */
export function scriptOperations(run: RunScript): ScriptOperations {
  return {
    increment: async (key, ttlSeconds, by = 1) => Number(await run("increment", key, [String(ttlSeconds), String(by)])),
    deleteIfEquals: async (key, value) => Number(await run("deleteIfEquals", key, [value])) === 1,
    expireIfEquals: async (key, value, ttlSeconds) =>
      Number(await run("expireIfEquals", key, [value, String(ttlSeconds)])) === 1,
    async claimHashes(keys, claim) {
      const replies = (await Promise.all(keys.map((key) => run("claim", key, [claim])))) as Array<unknown[] | null>;
      return replies.map((reply) =>
        reply ? { claim: String(reply[0]), counters: countersFrom(reply.slice(1)) } : null,
      );
    },
    async releaseClaims(claims) {
      await Promise.all(claims.map(({ key, claim }) => run("release", key, [claim])));
    },
  };
}
