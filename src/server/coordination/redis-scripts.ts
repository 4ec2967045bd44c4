// The Lua the Upstash KeyValue runs; each touches one key, so every script works on a cluster.

/**
 * How a claim lives inside a counter hash (docs/redis-schema.md): the claimed counters are kept as one
 * JSON field, `#claimed` (`[field, value, …]`), and `#claim` holds the claim id. Request-path fields never
 * start with `#`, so increments that arrive during a flush land beside the claim, not in it.
 */
export const CLAIM_FIELD = "#claim";
export const CLAIMED_FIELD = "#claimed";

/**
 * KEYS[1] the hash, ARGV[1] a fresh claim id. Answers false (absent) or {claim, field, value, …}.
 * Claiming rebuilds the hash as the claim alone (DEL, then one HSET) and restores its TTL: two
 * commands whatever the number of counters.
 */
export const CLAIM_SCRIPT = `
local claim = redis.call('HGET', KEYS[1], '${CLAIM_FIELD}')
if claim then
  local out = cjson.decode(redis.call('HGET', KEYS[1], '${CLAIMED_FIELD}'))
  table.insert(out, 1, claim)
  return out
end
local flat = redis.call('HGETALL', KEYS[1])
if #flat == 0 then return false end
local ttl = redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], '${CLAIM_FIELD}', ARGV[1], '${CLAIMED_FIELD}', cjson.encode(flat))
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
table.insert(flat, 1, ARGV[1])
return flat
`;

/** KEYS[1] the hash, ARGV[1] the claim. Redis deletes the hash itself once its last field is gone. */
export const RELEASE_SCRIPT = `
if redis.call('HGET', KEYS[1], '${CLAIM_FIELD}') ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], '${CLAIM_FIELD}', '${CLAIMED_FIELD}')
return 1
`;

export const DELETE_IF_EQUALS_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export const EXPIRE_IF_EQUALS_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/** KEYS[1] the counter, ARGV[1] its TTL, set when the counter is created. */
export const INCREMENT_SCRIPT = `
local by = tonumber(ARGV[2])
local n = redis.call('INCRBY', KEYS[1], by)
if n == by then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
`;

/** `[field, value, …]` as Redis answers it, into counters. */
export function countersFrom(flat: readonly unknown[]): Record<string, number> {
  const counters: Record<string, number> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) counters[String(flat[i])] = Number(flat[i + 1]);
  return counters;
}

/** SCAN MATCH is a glob: the product's prefixes hold none of its special characters, but stay exact anyway. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}
