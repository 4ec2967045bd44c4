import { describe, expect, it } from "vitest";
import { percentileOf } from "@/server/analytics/request-log-stats";

// Buckets: ≤10, ≤25, ≤50, ≤100, ≤250, ≤500, ≤1000, ≤2500, ≤5000, over.
const histogram = (counts: Record<number, number>) => Array.from({ length: 10 }, (_, i) => counts[i] ?? 0);

describe("percentileOf", () => {
  it("is null without requests", () => {
    expect(percentileOf(histogram({}), 0.95)).toBeNull();
  });

  it("interpolates by rank inside the bucket that holds it", () => {
    // 100 requests: 90 at ≤ 10 ms, 10 in (50, 100]; rank 95 is the 5th of those 10.
    expect(percentileOf(histogram({ 0: 90, 3: 10 }), 0.95)).toBeCloseTo(50 + (5 / 10) * 50, 10);
    expect(percentileOf(histogram({ 0: 100 }), 0.95)).toBeCloseTo(9.5, 10);
  });

  it("skips empty buckets and reports the open bucket's lower bound", () => {
    expect(percentileOf(histogram({ 1: 1, 9: 99 }), 0.95)).toBe(5000);
    expect(percentileOf(histogram({ 2: 95, 9: 5 }), 0.95)).toBe(50);
  });
});
