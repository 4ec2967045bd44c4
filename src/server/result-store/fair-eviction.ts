/** An object as eviction sees it; `team` is null when nobody knows whose it is. */
export interface Evictable {
  key: string;
  bytes: number;
  team: string | null;
}

/**
 * Which objects go to free `toFree` bytes, from objects listed oldest first: always from the team that
 * holds the most at that moment, its oldest first. One tenant filling a shared store evicts its own
 * results, and nobody is taken below the share of whoever is larger. Objects of no known team count as
 * one team of their own.
 */
export function fairEvictions(
  oldestFirst: readonly Evictable[],
  toFree: number,
  /**
   * What each team holds in all, when `oldestFirst` is only each team's oldest objects (prune-plan.ts);
   * by default the sum of its objects given.
   */
  totals?: ReadonlyMap<string | null, number>,
): string[] {
  const teams = new Map<string | null, { bytes: number; queue: Evictable[]; next: number }>();
  for (const object of oldestFirst) {
    const team = teams.get(object.team) ?? { bytes: totals?.get(object.team) ?? 0, queue: [], next: 0 };
    if (!totals) team.bytes += object.bytes;
    team.queue.push(object);
    teams.set(object.team, team);
  }
  const doomed: string[] = [];
  let freed = 0;
  while (freed < toFree) {
    let largest: { bytes: number; queue: Evictable[]; next: number } | null = null;
    for (const team of teams.values())
      if (team.next < team.queue.length && (!largest || team.bytes > largest.bytes)) largest = team;
    if (!largest) break;
    const object = largest.queue[largest.next++]!;
    largest.bytes -= object.bytes;
    freed += object.bytes;
    doomed.push(object.key);
  }
  return doomed;
}
