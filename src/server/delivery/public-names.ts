import { createHmac, createSecretKey, hkdfSync, type KeyObject } from "node:crypto";
import { LRUCache } from "lru-cache";

/**
 * What image responses name in public: the Cache-Tag values a CDN purges by, and the ETag. Everyone
 * on the way sees them (a CDN's logs, browsers, proxies), so each is a keyed digest: it reveals no
 * project id, source or purge count, and cannot be computed, confirmed or enumerated without the
 * server's secret. One instance of this is built per process; the image route and a purge use the
 * same one, so the tag a purge answers is the tag the responses carried.
 */
export interface PublicNames {
  /** Cache-Tag of every result of a project (a whole purge drops it). */
  projectTag(projectId: string): string;
  /** Cache-Tag of every result of one source in a project (a source purge drops it). */
  sourceTag(projectId: string, source: string): string;
  /** Strong ETag of a variant at its purge generation: changes with either, stable otherwise. */
  etag(projectId: string, variant: string, generation: number): string;
}

const HKDF_SALT = "optstuff/public-names";
const HKDF_INFO = "hmac-sha256/v1";
/** 128 bits: collisions between tags or ETags stay out of reach, and the headers stay short. */
const DIGEST_CHARS = 22;
/**
 * Digests kept, by the characters of what they name (a source URL is up to 8 KB): every cache hit
 * names the same three things again, and three HMACs were 2 % of a hit's CPU.
 */
const KEPT_CHARS = 4_000_000;

/**
 * Keyed by a subkey of the master secret (OPTSTUFF_KEY_ENCRYPTION_SECRET), derived with its own HKDF
 * salt so it is independent of the key that seals API-key secrets. Every instance sharing the master
 * names the same things alike; rotating the master renames them all (docs/caching.md).
 */
export function createPublicNames(masterSecret: string): PublicNames {
  // Derived once: HKDF per request would show up on the hot path.
  const key = createSecretKey(Buffer.from(hkdfSync("sha256", masterSecret, HKDF_SALT, HKDF_INFO, 32)));
  // The first field says what is named, so a tag can never equal an ETag or another kind of tag.
  const kept = new LRUCache<string, string>({
    maxSize: KEPT_CHARS,
    sizeCalculation: (named, text) => text.length + named.length,
  });
  const digest = (...fields: string[]) => {
    const text = fields.join("\n");
    let named = kept.get(text);
    if (named === undefined) kept.set(text, (named = keyedDigest(key, text)));
    return named;
  };
  return {
    projectTag: (projectId) => `optstuff-p-${digest("project", projectId)}`,
    // The source goes last: it is the only field that is not a fixed-alphabet identifier.
    sourceTag: (projectId, source) => `optstuff-s-${digest("source", projectId, source)}`,
    etag: (projectId, variant, generation) => `"${digest("etag", projectId, variant, String(generation))}"`,
  };
}

function keyedDigest(key: KeyObject, text: string): string {
  return createHmac("sha256", key).update(text).digest("base64url").slice(0, DIGEST_CHARS);
}
