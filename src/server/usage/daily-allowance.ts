/**
 * How many distinct keys (sources, variants) one instance lets a project add to a statistics table per
 * UTC day. Those tables hold a row per distinct key and day, so without a bound their size, and the
 * usage page's read of them, would follow whatever a tenant's traffic chooses (a new source name per
 * request); with it, a read of a project's range is at most `perProjectDay` rows a day per instance.
 * Keys already admitted that day stay admitted; the rest are told apart from them by the caller.
 */
export interface DailyAllowance {
  /** Whether `key` may have a row of its own for the project that day (it has one, or there is room). */
  admits(projectId: string, day: string, key: string): boolean;
}

/** Keys are remembered by this many leading characters of their hex digest: 64 bits, ample per project-day. */
const REMEMBERED_CHARS = 16;

export function createDailyAllowance(perProjectDay: number): DailyAllowance {
  const seen = new Map<string, Set<string>>();
  let latest = "";
  return {
    admits(projectId, day, key) {
      if (day > latest) {
        latest = day;
        // Only today and yesterday can still arrive (a batch written just after midnight).
        for (const id of seen.keys()) if (id.slice(id.indexOf("|") + 1) < previousDay(day)) seen.delete(id);
      }
      const id = `${projectId}|${day}`;
      const keys = seen.get(id) ?? new Set<string>();
      seen.set(id, keys);
      const short = key.slice(0, REMEMBERED_CHARS);
      if (keys.has(short)) return true;
      if (keys.size >= perProjectDay) return false;
      keys.add(short);
      return true;
    },
  };
}

function previousDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}
