import { describe, expect, it } from "vitest";
import { fairEvictions, type Evictable } from "@/server/result-store/fair-eviction";

const object = (key: string, team: string | null, bytes = 10): Evictable => ({ key, bytes, team });

describe("fairEvictions", () => {
  it("takes from the team that holds the most, its oldest first, never the quiet team's", () => {
    const oldestFirst = [
      object("q1", "quiet"),
      object("q2", "quiet"),
      ...Array.from({ length: 8 }, (_, i) => object(`l${i}`, "loud")),
    ];
    expect(fairEvictions(oldestFirst, 50)).toEqual(["l0", "l1", "l2", "l3", "l4"]);
  });

  it("alternates once the teams hold the same, and counts objects of no team as one team", () => {
    const oldestFirst = [object("a1", "a"), object("n1", null), object("a2", "a"), object("n2", null)];
    const doomed = fairEvictions(oldestFirst, 30);
    expect(doomed).toHaveLength(3);
    expect(new Set(doomed.slice(0, 2))).toEqual(new Set(["a1", "n1"]));
  });

  it("stops when everything is gone, and frees nothing for nothing", () => {
    expect(fairEvictions([object("x", "t")], 100)).toEqual(["x"]);
    expect(fairEvictions([object("x", "t")], 0)).toEqual([]);
  });
});
