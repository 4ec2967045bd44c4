import { describe, expect, it } from "vitest";
import { fairEvictions } from "@/server/result-store/fair-eviction";
import { createCensus, waterLevel, type ListedObject } from "@/server/result-store/prune-plan";

/** A small deterministic generator: the same buckets on every run. */
function generator(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const HOUR = 3_600_000;

function bucket(seed: number) {
  const random = generator(seed);
  const projects = Array.from({ length: 1 + Math.floor(random() * 12) }, (_, i) => `p${i}`);
  const teamOf = new Map(projects.map((p) => [p, `t${Math.floor(random() * 4)}`]));
  const start = Date.UTC(2026, 10, 1);
  // Many objects an hour, or about one: the hour is then as fine as the objects themselves.
  const hours = seed % 2 === 0 ? 72 : 5_000;
  const objects: ListedObject[] = Array.from({ length: 50 + Math.floor(random() * 400) }, (_, i) => ({
    key: `k${i}`,
    project: projects[Math.floor(random() * projects.length)]!,
    // Skewed sizes and clustered times: many objects share an hour, some teams are much larger.
    bytes: Math.floor(1 + random() ** 3 * 50_000),
    at: start + Math.floor(random() * hours) * HOUR + Math.floor(random() * 4) * 1000,
  }));
  return { objects, teamOf };
}

/** The whole listing in memory, as the store pruned before: the reference. */
function wholeListing(objects: ListedObject[], teamOf: Map<string, string>, toFree: number): string[] {
  const oldestFirst = [...objects].sort((a, b) => a.at - b.at);
  return fairEvictions(
    oldestFirst.map((o) => ({ key: o.key, bytes: o.bytes, team: teamOf.get(o.project) ?? null })),
    toFree,
  );
}

/** Two passes over pages, keeping numbers per project and hour, then the candidates only. */
function pageByPage(objects: ListedObject[], teamOf: Map<string, string>, toFree: number, pageSize: number) {
  const pages = Array.from({ length: Math.ceil(objects.length / pageSize) }, (_, i) =>
    objects.slice(i * pageSize, (i + 1) * pageSize),
  );
  const census = createCensus();
  for (const page of pages) for (const object of page) census.add(object);
  const plan = census.plan(teamOf, toFree);
  const candidates = pages
    .flat()
    .filter((o) => plan.mayGo(o))
    .map((o) => ({ key: o.key, bytes: o.bytes, team: plan.teamOf(o.project), at: o.at }))
    .sort((a, b) => a.at - b.at);
  return { evicted: fairEvictions(candidates, toFree, plan.totals), candidates: candidates.length };
}

describe("pruning a bucket page by page", () => {
  it("evicts exactly what a whole listing would, from far fewer objects held", () => {
    let held = 0;
    let listed = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const { objects, teamOf } = bucket(seed);
      const total = objects.reduce((sum, o) => sum + o.bytes, 0);
      const toFree = Math.floor(total * (0.02 + (seed % 7) * 0.05));
      const { evicted, candidates } = pageByPage(objects, teamOf, toFree, 1 + (seed % 40));
      expect(evicted, `seed ${seed}`).toEqual(wholeListing(objects, teamOf, toFree));
      held += candidates;
      listed += objects.length;
    }
    // Fewer than half of the objects are held across these buckets (most prunes free a small share).
    expect(held / listed).toBeLessThan(0.5);
  });

  it("counts every team as one without teams, and frees everything when asked to", () => {
    const { objects } = bucket(7);
    const none = new Map<string, string>();
    const total = objects.reduce((sum, o) => sum + o.bytes, 0);
    for (const toFree of [1, total / 3, total, total * 2])
      expect(pageByPage(objects, none, toFree, 10).evicted).toEqual(wholeListing(objects, none, toFree));
  });

  it("finds the level that cutting every team above it frees the bytes asked", () => {
    expect(waterLevel([10, 6], 5)).toBe(5.5);
    expect(waterLevel([10, 6, 1], 2)).toBe(8);
    expect(waterLevel([4, 4], 10)).toBe(0);
    expect(waterLevel([], 10)).toBe(0);
  });
});
