import { randomBytes } from "node:crypto";
import type { KeyValue } from "./types";

export interface HeldLock {
  /** False once an extension found the lock gone or taken (it expired while this holder stalled). */
  held(): boolean;
  release(): Promise<void>;
}

/**
 * `SET key token NX EX ttl`: a lock only its holder (the token) can release or extend. While held it is
 * extended every third of its TTL, so a long run keeps it and a crashed holder loses it within one TTL.
 * Null when another holder has it.
 */
export async function acquireLock(kv: KeyValue, key: string, ttlSeconds: number): Promise<HeldLock | null> {
  const token = randomBytes(16).toString("base64url");
  if (!(await kv.set(key, token, { ttlSeconds, onlyIfAbsent: true }))) return null;
  let held = true;
  const timer = setInterval(
    () => {
      kv.expireIfEquals(key, token, ttlSeconds).then(
        (extended) => {
          held &&= extended;
        },
        () => {}, // Redis unreachable for a moment: the next beat tries again before the TTL runs out
      );
    },
    (ttlSeconds * 1000) / 3,
  );
  timer.unref();
  return {
    held: () => held,
    async release() {
      clearInterval(timer);
      if (held) await kv.deleteIfEquals(key, token);
      held = false;
    },
  };
}
