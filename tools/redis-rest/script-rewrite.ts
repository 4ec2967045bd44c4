// Upstash accepts a script flag a stock Redis refuses; this rewrites scripts on their way in and keeps
// the client's own SHA-1s working (see platform-facts.md, "ratelimit traps").
import { createHash } from "node:crypto";
import type { Outcome, RedisCommand } from "./protocol";

/** Flags only Upstash understands. Redis 7 answers `ERR Unexpected flag in script shebang` to them. */
const UPSTASH_ONLY_FLAGS = new Set(["allow-key-locking"]);

export function sha1(text: string): string {
  return createHash("sha1").update(text, "utf8").digest("hex");
}

/**
 * `#!lua flags=allow-key-locking,no-writes` → `#!lua flags=no-writes`. When no flag remains the shebang
 * line is emptied rather than removed, so Lua error line numbers still match the client's script.
 */
export function removeUpstashFlags(script: string): string {
  if (!script.startsWith("#!")) return script;
  const newline = script.indexOf("\n");
  // A CRLF script keeps its "\r" with the rest of the text, out of the last flag's name.
  const lineEnd = newline > 0 && script[newline - 1] === "\r" ? newline - 1 : newline;
  const shebang = lineEnd === -1 ? script : script.slice(0, lineEnd);
  const rest = lineEnd === -1 ? "" : script.slice(lineEnd);
  let removed = false;
  let flagsLeft = 0;
  const tokens = shebang.split(" ").flatMap((token) => {
    if (!token.startsWith("flags=")) return token === "" ? [] : [token];
    const flags = token
      .slice("flags=".length)
      .split(",")
      .filter((flag) => flag !== "");
    const kept = flags.filter((flag) => !UPSTASH_ONLY_FLAGS.has(flag));
    removed ||= kept.length !== flags.length;
    flagsLeft += kept.length;
    return kept.length > 0 ? [`flags=${kept.join(",")}`] : [];
  });
  if (!removed) return script;
  return flagsLeft > 0 ? tokens.join(" ") + rest : rest;
}

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
