import { createHash } from "node:crypto";

/**
 * Script flags only Upstash understands (@upstash/ratelimit's scripts carry `allow-key-locking`).
 * Redis and Valkey answer `ERR Unexpected flag in script shebang` to them, so a script bound for them
 * loses these flags on the way (over TCP: tcp-limiter-redis.ts; the test endpoint: tools/redis-rest).
 */
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
