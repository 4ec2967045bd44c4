import { describe, expect, it } from "vitest";
import { redisKeys } from "@/server/coordination/keys";
import {
  aggregateClaims,
  bucketMinute,
  keyIdsOf,
  parseUsageField,
  type ClaimedBucket,
} from "@/server/usage/aggregate-claims";
import { usageFields } from "@/server/usage/buffer-usage";

const P = "11111111-1111-4111-8111-111111111111";
const K1 = "22222222-2222-4222-8222-222222222222";
const K2 = "33333333-3333-4333-8333-333333333333";
const GONE = "44444444-4444-4444-8444-444444444444";

function bucket(stamp: string, counters: Record<string, number>): ClaimedBucket {
  return { key: `usage:buffer:minute:${stamp}`, stamp, claim: "c", counters };
}

describe("bucket keys and fields", () => {
  it("reads the minute back from the key the request path writes", () => {
    const at = new Date("2026-03-07T12:30:59.999Z");
    expect(bucketMinute(redisKeys.usageBucket(at))?.toISOString()).toBe("2026-03-07T12:30:00.000Z");
    for (const key of [
      "usage:buffer:minute:2026030712",
      "usage:buffer:minute:20260307123x",
      "usage:buffer:flush:lock",
      "other:202603071230",
    ]) {
      expect(bucketMinute(key)).toBeNull();
    }
  });

  it("parses the fields the request path writes and refuses anything else", () => {
    for (const [field] of Object.entries(
      usageFields({ projectId: P, apiKeyId: K1, requests: 1, bytes: 5, transforms: 1 }),
    )) {
      expect(parseUsageField(field)).toMatchObject({ projectId: P, apiKeyId: K1 });
    }
    for (const field of ["", "a|b|req", `${P}|${K1}`, `${P}|${K1}|hits`, `${P}|${K1}|req|x`, `${P}|not-a-uuid|req`]) {
      expect(parseUsageField(field)).toBeNull();
    }
  });
});

describe("aggregateClaims", () => {
  const keys = new Map([
    [K1, P],
    [K2, P],
  ]);

  it("sums per (project, key, UTC date) across buckets, with per-bucket totals", () => {
    const { rows, totals } = aggregateClaims(
      [
        bucket("202603072359", {
          [`${P}|${K1}|req`]: 3,
          [`${P}|${K1}|bytes`]: 300,
          [`${P}|${K2}|req`]: 1,
          [`${P}|${K2}|bytes`]: 0,
        }),
        bucket("202603080000", { [`${P}|${K1}|req`]: 2, [`${P}|${K1}|bytes`]: 20, [`${P}|${K1}|tf`]: 2 }),
        // An encode finished after its answer: a transform and nothing else.
        bucket("202603080001", { [`${P}|${K1}|req`]: 5, [`${P}|${K1}|bytes`]: 50, [`${P}|${K2}|tf`]: 1 }),
      ],
      keys,
    );
    expect(rows.sort((a, b) => `${a.date}${a.apiKeyId}`.localeCompare(`${b.date}${b.apiKeyId}`))).toEqual([
      { projectId: P, apiKeyId: K1, date: "2026-03-07", requests: 3, bytes: 300, transforms: 0 },
      { projectId: P, apiKeyId: K2, date: "2026-03-07", requests: 1, bytes: 0, transforms: 0 },
      { projectId: P, apiKeyId: K1, date: "2026-03-08", requests: 7, bytes: 70, transforms: 2 },
      { projectId: P, apiKeyId: K2, date: "2026-03-08", requests: 0, bytes: 0, transforms: 1 },
    ]);
    expect(totals).toEqual([
      { bucket: "202603072359", claim: "c", rows: 2, requests: 4, bytes: 300, droppedRequests: 0 },
      { bucket: "202603080000", claim: "c", rows: 1, requests: 2, bytes: 20, droppedRequests: 0 },
      { bucket: "202603080001", claim: "c", rows: 2, requests: 5, bytes: 50, droppedRequests: 0 },
    ]);
  });

  it("drops and counts deleted keys, keys under another project, and ignores foreign fields", () => {
    const other = "55555555-5555-4555-8555-555555555555";
    const claimed = bucket("202603071230", {
      [`${P}|${GONE}|req`]: 4,
      [`${P}|${GONE}|bytes`]: 40,
      [`${other}|${K1}|req`]: 2,
      [`${P}|${K1}|req`]: 1,
      junk: 9,
      [`${P}|${K2}|req`]: Number.NaN,
    });
    const { rows, totals } = aggregateClaims([claimed], keys);
    expect(rows).toEqual([{ projectId: P, apiKeyId: K1, date: "2026-03-07", requests: 1, bytes: 0, transforms: 0 }]);
    expect(totals[0]).toMatchObject({ requests: 1, droppedRequests: 6, rows: 1 });
    expect(keyIdsOf([claimed]).sort()).toEqual([K1, K2, GONE].sort());
  });
});
