import type { Evictable } from "./fair-eviction";

const HOUR_MS = 3_600_000;

/** An object as a listing page shows it, its project read back from its name. */
export interface ListedObject {
  key: string;
  bytes: number;
  /** LastModified in Unix milliseconds (0 when the server gave none: the oldest). */
  at: number;
  project: string;
}

export type Candidate = Evictable & { at: number };

/**
 * What a bucket holds, per project and hour of writing: the first pass of a prune, page by page. It
 * keeps a few numbers per project and hour, never the objects, however many the bucket holds.
 */
export function createCensus() {
  const projects = new Map<string, { bytes: number; hours: Map<number, number> }>();
  let total = 0;
  let objects = 0;
  let largest = 0;
  return {
    add(object: Omit<ListedObject, "key">): void {
      const entry = projects.get(object.project) ?? { bytes: 0, hours: new Map<number, number>() };
      const hour = Math.floor(object.at / HOUR_MS);
      entry.bytes += object.bytes;
      entry.hours.set(hour, (entry.hours.get(hour) ?? 0) + object.bytes);
      projects.set(object.project, entry);
      total += object.bytes;
      objects += 1;
      largest = Math.max(largest, object.bytes);
    },
    get total() {
      return total;
    },
    get objects() {
      return objects;
    },
    projects: () => [...projects.keys()],
    /**
     * Which objects the second pass keeps as candidates to free `toFree` bytes fairly (fair-eviction.ts
     * takes from the team that holds the most, its oldest first): for each team the water level leaves
     * above it, with one object's margin, its oldest hours up to that many bytes. The candidates are
     * about what goes anyway plus an hour per team; the team totals let the choice among them be the
     * one a whole listing would make.
     */
    plan(teamOf: ReadonlyMap<string, string>, toFree: number) {
      const teams = new Map<string | null, { bytes: number; hours: Map<number, number> }>();
      for (const [project, entry] of projects) {
        const team = teamOf.get(project) ?? null;
        const sum = teams.get(team) ?? { bytes: 0, hours: new Map<number, number>() };
        sum.bytes += entry.bytes;
        for (const [hour, bytes] of entry.hours) sum.hours.set(hour, (sum.hours.get(hour) ?? 0) + bytes);
        teams.set(team, sum);
      }
      const level = waterLevel(
        [...teams.values()].map((t) => t.bytes),
        toFree,
      );
      const cutoffs = new Map<string | null, number>();
      for (const [team, sum] of teams) {
        // A team this far below the level is never the largest before the bytes are freed.
        if (sum.bytes <= level - largest) continue;
        // Taking one object at a time, the choice can leave a team up to one object below the level.
        const needed = Math.max(0, sum.bytes - level) + largest;
        let covered = 0;
        for (const hour of [...sum.hours.keys()].sort((a, b) => a - b)) {
          cutoffs.set(team, hour);
          covered += sum.hours.get(hour)!;
          if (covered >= needed) break;
        }
      }
      return {
        teamOf: (project: string) => teamOf.get(project) ?? null,
        totals: new Map([...teams].map(([team, sum]) => [team, sum.bytes])),
        /** Whether an object of the second pass may have to go (its team's oldest hours). */
        mayGo(object: { project: string; at: number }): boolean {
          const cutoff = cutoffs.get(teamOf.get(object.project) ?? null);
          return cutoff !== undefined && Math.floor(object.at / HOUR_MS) <= cutoff;
        },
      };
    },
  };
}

/**
 * The level L at which cutting every team above it down to L frees `toFree` bytes (0 when even
 * everything would not).
 */
export function waterLevel(teamBytes: readonly number[], toFree: number): number {
  const sorted = [...teamBytes].sort((a, b) => b - a);
  let above = 0;
  for (let k = 1; k <= sorted.length; k++) {
    above += sorted[k - 1]!;
    const level = (above - toFree) / k;
    if (k === sorted.length || level >= sorted[k]!) return Math.max(0, level);
  }
  return 0;
}
