import { createCipheriv, createDecipheriv, createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { LRUCache } from "lru-cache";

/**
 * What a bucket calls each result. A presigned link (delivery/oversize.ts) shows the object's name to
 * everyone the redirect passes (browsers, CDNs, their logs), so no segment of it is the project's id,
 * the source or the purge count in clear (docs/security.md), as the Cache-Tag values are not.
 *
 * Every segment is keyed by the server's secret and by the segments before it, so the name of a key's
 * prefix is a prefix of the key's name: a purge still deletes a project's or a source's objects by
 * prefix. The first segment, the project, is encrypted rather than digested (deterministically: one
 * project, one prefix), so pruning can read whose an object is and evict from the team holding most.
 */
export interface ObjectNames {
  /** The name in the bucket of a result key (result-keys.ts), or of a prefix of one, segment for segment. */
  nameOf(key: string): string;
  /**
   * The project a name's first segment stands for; null for a name this secret did not make (written
   * before names were keyed, or under another master secret): such an object is never read.
   */
  projectOf(name: string): string | null;
}

const HKDF_SALT = "optstuff/result-object-names";
const HKDF_INFO = "aes-256-ctr+hmac-sha256/v1";
/** The synthetic IV: the first 128 bits of the project's keyed digest, which also authenticate it. */
const IV_BYTES = 16;
/** 128 bits, as the public names: no two segments of one parent collide. */
const SEGMENT_CHARS = 22;
/**
 * Names kept, by the characters of their keys: a hit reads the same result again, and naming it (a
 * cipher and an HMAC per segment) was 2 % of a hit's CPU.
 */
const KEPT_CHARS = 4_000_000;

/**
 * Keyed by subkeys of the master secret (OPTSTUFF_KEY_ENCRYPTION_SECRET) derived with their own HKDF
 * salt. Every instance and the command line share the master, so they name alike; rotating it renames
 * every object (the old ones are never read again, and the next pruning deletes them).
 */
export function createObjectNames(masterSecret: string): ObjectNames {
  // Derived once: HKDF per request would show up on the hot path.
  const keys = Buffer.from(hkdfSync("sha256", masterSecret, HKDF_SALT, HKDF_INFO, 64));
  const macKey = keys.subarray(0, 32);
  const encryptionKey = keys.subarray(32);
  const mac = (...fields: string[]) => createHmac("sha256", macKey).update(fields.join("\n")).digest();

  // SIV (RFC 5297's construction with HMAC as its PRF): the IV is a keyed digest of the plaintext, so
  // equal ids give equal names and nothing else does, and a name not made here fails its check.
  function sealProject(projectId: string): string {
    const iv = mac("project", projectId).subarray(0, IV_BYTES);
    const cipher = createCipheriv("aes-256-ctr", encryptionKey, iv);
    return Buffer.concat([iv, cipher.update(projectId, "utf8"), cipher.final()]).toString("base64url");
  }

  function openProject(segment: string): string | null {
    const sealed = Buffer.from(segment, "base64url");
    if (sealed.length <= IV_BYTES) return null;
    const iv = sealed.subarray(0, IV_BYTES);
    const decipher = createDecipheriv("aes-256-ctr", encryptionKey, iv);
    const projectId = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES)), decipher.final()]).toString("utf8");
    return timingSafeEqual(mac("project", projectId).subarray(0, IV_BYTES), iv) ? projectId : null;
  }

  function name(key: string): string {
    const segments = key.split("/");
    return segments
      .map((segment, i) =>
        i === 0
          ? sealProject(segment)
          : mac("segment", segments.slice(0, i + 1).join("/"))
              .toString("base64url")
              .slice(0, SEGMENT_CHARS),
      )
      .join("/");
  }

  const kept = new LRUCache<string, string>({
    maxSize: KEPT_CHARS,
    sizeCalculation: (named, key) => key.length + named.length,
  });
  return {
    nameOf(key) {
      let named = kept.get(key);
      if (named === undefined) kept.set(key, (named = name(key)));
      return named;
    },
    projectOf: (name) => openProject(name.split("/", 1)[0]!),
  };
}
