import { keySpecs } from "@/server/coordination/keys";
import type { HashClaim } from "@/server/coordination/types";

/** A claimed minute bucket: the Redis key, its UTC minute stamp and the counters under the claim. */
export interface ClaimedBucket extends HashClaim {
  key: string;
  stamp: string;
}

export interface UsageRow {
  projectId: string;
  apiKeyId: string;
  /** UTC, YYYY-MM-DD. */
  date: string;
  requests: number;
  bytes: number;
  transforms: number;
}

export interface BucketTotals {
  bucket: string;
  claim: string;
  rows: number;
  requests: number;
  bytes: number;
  droppedRequests: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const STAMP = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})$/;

/** The minute a bucket key stands for, or null for a key that is not a bucket. */
export function bucketMinute(key: string): Date | null {
  return key.startsWith(keySpecs.usageBucket.prefix)
    ? stampMinute(key.slice(keySpecs.usageBucket.prefix.length))
    : null;
}

/** The minute of a `YYYYMMDDHHmm` stamp (a bucket's key ends with it; usage_buffer rows carry it). */
export function stampMinute(stamp: string): Date | null {
  const match = STAMP.exec(stamp);
  if (!match) return null;
  const [, y, mo, d, h, mi] = match;
  const at = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi)));
  return Number.isNaN(at.getTime()) ? null : at;
}

const MEASURES = { req: "requests", bytes: "bytes", tf: "transforms" } as const;
type Measure = keyof typeof MEASURES;
type ParsedField = { projectId: string; apiKeyId: string; measure: Measure } | null;

// The same few thousand field names recur in every bucket: parse each once.
const parsedFields = new Map<string, ParsedField>();

/** `{projectId}|{apiKeyId}|req|bytes|tf` → its parts; null for a field this version did not write. */
export function parseUsageField(field: string): ParsedField {
  let parsed = parsedFields.get(field);
  if (parsed === undefined) {
    if (parsedFields.size >= 100_000) parsedFields.clear();
    parsed = parseField(field);
    parsedFields.set(field, parsed);
  }
  return parsed;
}

function parseField(field: string): ParsedField {
  const [projectId, apiKeyId, measure, ...rest] = field.split("|");
  if (rest.length > 0 || !projectId || !apiKeyId || !UUID.test(projectId) || !UUID.test(apiKeyId)) return null;
  return measure !== undefined && Object.hasOwn(MEASURES, measure)
    ? { projectId: projectId.toLowerCase(), apiKeyId: apiKeyId.toLowerCase(), measure: measure as Measure }
    : null;
}

/**
 * Sums claims into one row per (project, key, UTC date). `keyProjects` maps each key that still exists
 * to its project: counters of deleted keys (or of a key under the wrong project) are dropped and
 * counted per bucket, so the ledger says what was not applied and why the totals differ.
 */
export function aggregateClaims(
  buckets: readonly ClaimedBucket[],
  keyProjects: ReadonlyMap<string, string>,
): { rows: UsageRow[]; totals: BucketTotals[] } {
  const rows = new Map<string, UsageRow>();
  const totals = buckets.map((bucket) => {
    const date = `${bucket.stamp.slice(0, 4)}-${bucket.stamp.slice(4, 6)}-${bucket.stamp.slice(6, 8)}`;
    const bucketRows = new Set<string>();
    const sum: BucketTotals = {
      bucket: bucket.stamp,
      claim: bucket.claim,
      rows: 0,
      requests: 0,
      bytes: 0,
      droppedRequests: 0,
    };
    for (const [field, value] of Object.entries(bucket.counters)) {
      const parsed = parseUsageField(field);
      if (!parsed || !Number.isFinite(value)) continue;
      if (keyProjects.get(parsed.apiKeyId) !== parsed.projectId) {
        if (parsed.measure === "req") sum.droppedRequests += value;
        continue;
      }
      const id = `${parsed.projectId}|${parsed.apiKeyId}|${date}`;
      const row = rows.get(id) ?? {
        projectId: parsed.projectId,
        apiKeyId: parsed.apiKeyId,
        date,
        requests: 0,
        bytes: 0,
        transforms: 0,
      };
      rows.set(id, row);
      bucketRows.add(id);
      row[MEASURES[parsed.measure]] += value;
      // The ledger keeps requests and bytes, as the seed's totals; transforms are in the rows only.
      if (parsed.measure === "req") sum.requests += value;
      else if (parsed.measure === "bytes") sum.bytes += value;
    }
    sum.rows = bucketRows.size;
    return sum;
  });
  return { rows: [...rows.values()], totals };
}

/** Every key id the claims mention, for the existence check. */
export function keyIdsOf(buckets: readonly ClaimedBucket[]): string[] {
  const ids = new Set<string>();
  for (const bucket of buckets)
    for (const field of Object.keys(bucket.counters)) {
      const parsed = parseUsageField(field);
      if (parsed) ids.add(parsed.apiKeyId);
    }
  return [...ids];
}
