// Upstash accepts a script flag a stock Redis refuses; this rewrites scripts on their way in and keeps
// the client's own SHA-1s working (see platform-facts.md, "ratelimit traps").
import { removeUpstashFlags, sha1 } from "../../src/server/coordination/script-flags";
import type { Outcome, RedisCommand } from "./protocol";

export interface ScriptTranslation {
  command: RedisCommand;
  /**
   * Sent first, once per script: `SCRIPT LOAD` of a script seen in an EVAL. Upstash's script cache is
   * global; on a cluster each node has its own, and the backend fans SCRIPT LOAD out to every master,
   * so later EVALSHAs for keys on any node find the script as they would on Upstash.
   */
  preload?: RedisCommand;
  /** Adjusts Redis's reply so the client sees what Upstash would have answered. */
  finish(outcome: Outcome): Outcome;
}

const unchanged = (outcome: Outcome): Outcome => outcome;

/**
 * Rewrites EVAL / EVALSHA / SCRIPT LOAD / SCRIPT EXISTS. Clients compute SHA-1s of the script they
 * hold (ratelimit even ships them precomputed), but Redis stores the rewritten text under another
 * SHA-1, so the map sha1(original) → sha1(rewritten) translates every SHA the client sends. A SHA never
 * seen passes through unchanged and earns the NOSCRIPT that makes clients fall back to EVAL.
 */
export function createScriptTranslator() {
  const rewrittenSha = new Map<string, string>();
  const preloaded = new Set<string>();

  function rewrite(script: string): string {
    const rewritten = removeUpstashFlags(script);
    rewrittenSha.set(sha1(script), sha1(rewritten));
    return rewritten;
  }
  // Redis matches SHAs case-insensitively.
  const translateSha = (sha: string) => rewrittenSha.get(sha.toLowerCase()) ?? sha;

  function translate(command: RedisCommand): ScriptTranslation {
    const [name, ...args] = command;
    const upper = name.toUpperCase();
    const sub = args[0]?.toUpperCase();
    if ((upper === "EVAL" || upper === "EVAL_RO") && args[0] !== undefined) {
      const rewritten = rewrite(args[0]);
      const sha = sha1(rewritten);
      const preload: RedisCommand | undefined = preloaded.has(sha) ? undefined : ["SCRIPT", "LOAD", rewritten];
      preloaded.add(sha);
      return { command: [name, rewritten, ...args.slice(1)], finish: unchanged, preload };
    }
    if ((upper === "EVALSHA" || upper === "EVALSHA_RO") && args[0] !== undefined) {
      return { command: [name, translateSha(args[0]), ...args.slice(1)], finish: unchanged };
    }
    if (upper === "SCRIPT" && sub === "LOAD" && args[1] !== undefined) {
      const originalSha = sha1(args[1]);
      // The client compares the answer with its own SHA-1: hand back the original one.
      const finish = (outcome: Outcome): Outcome =>
        "error" in outcome ? outcome : { result: Buffer.from(originalSha) };
      return { command: [name, args[0] ?? "LOAD", rewrite(args[1])], finish };
    }
    if (upper === "SCRIPT" && sub === "EXISTS") {
      return { command: [name, args[0] ?? "EXISTS", ...args.slice(1).map(translateSha)], finish: unchanged };
    }
    return { command, finish: unchanged };
  }

  return { translate };
}

export type ScriptTranslator = ReturnType<typeof createScriptTranslator>;
