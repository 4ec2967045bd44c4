import { fairEvictions } from "./fair-eviction";
import { createCensus, type Candidate } from "./prune-plan";

interface Described {
  key: string;
  bytes: number;
  at: number;
  /** Null: a name the store cannot read back. */
  project: string | null;
}

export interface BucketPages<T> {
  /** The store's listing, a page at a time, from the start. */
  pages(): AsyncIterable<T[]>;
  describe(object: T): Described;
  remove(keys: string[]): Promise<void>;
  teamsOf?: (projectIds: readonly string[]) => Promise<ReadonlyMap<string, string>>;
}

/**
 * Brings a bucket holding more than `maxBytes` down to `target`, in two passes over its listing, a
 * page at a time (prune-plan.ts): the first counts bytes per project and hour and deletes what cannot
 * be read back; the second keeps only the objects that may have to go, and the fair choice
 * (fair-eviction.ts) is made among them. Memory follows what is evicted, not the bucket.
 */
export async function pruneBucket<T>(bucket: BucketPages<T>, target: number, maxBytes: number) {
  const census = createCensus();
  let dropped = { objects: 0, bytes: 0 };
  for await (const page of bucket.pages()) {
    const unreadable: string[] = [];
    for (const object of page.map(bucket.describe)) {
      // A name this store cannot read back is never read (written before names were keyed, or under
      // another master secret): it only takes room, and goes now.
      if (object.project === null) {
        unreadable.push(object.key);
        dropped = { objects: dropped.objects + 1, bytes: dropped.bytes + object.bytes };
      } else census.add({ ...object, project: object.project });
    }
    await bucket.remove(unreadable);
  }
  let freed = { objects: 0, bytes: 0 };
  if (census.total > maxBytes) {
    const toFree = census.total - target;
    const teams = bucket.teamsOf ? await bucket.teamsOf(census.projects()) : new Map<string, string>();
    const plan = census.plan(teams, toFree);
    const candidates: Candidate[] = [];
    for await (const page of bucket.pages())
      for (const object of page.map(bucket.describe))
        if (object.project !== null && plan.mayGo({ project: object.project, at: object.at }))
          candidates.push({ ...object, team: plan.teamOf(object.project) });
    candidates.sort((a, b) => a.at - b.at);
    const doomed = new Set(fairEvictions(candidates, toFree, plan.totals));
    const gone = candidates.filter((c) => doomed.has(c.key));
    await bucket.remove(gone.map((c) => c.key));
    freed = { objects: gone.length, bytes: gone.reduce((sum, c) => sum + c.bytes, 0) };
  }
  return {
    deleted: dropped.objects + freed.objects,
    bytes: dropped.bytes + freed.bytes,
    /** What the bucket holds now, as far as this prune saw. */
    left: { bytes: census.total - freed.bytes, objects: census.objects - freed.objects },
  };
}
