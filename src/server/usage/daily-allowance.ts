import { createHash } from "node:crypto";

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

/**
 * Keys remembered at most, every project together: with a thousand busy projects the memory stays
 * bounded (a number in a Set is about 20 bytes); past it, a key not yet admitted is not admitted.
 */
const REMEMBERED = 400_000;

/** A key as a 48-bit number: the memory of a number, not of the string (or of the string it was cut from). */
const numberOf = (key: string) => createHash("sha1").update(key).digest().readUIntBE(0, 6);

export function createDailyAllowance(perProjectDay: number, remembered = REMEMBERED): DailyAllowance {
  const seen = new Map<string, Set<number>>();
  let latest = "";
  let count = 0;
  return {
    admits(projectId, day, key) {
      if (day > latest) {
        latest = day;
        // Only today and yesterday can still arrive (a batch written just after midnight).
        for (const [id, keys] of seen)
          if (id.slice(id.indexOf("|") + 1) < previousDay(day)) {
            count -= keys.size;
            seen.delete(id);
          }
      }
      const id = `${projectId}|${day}`;
      const keys = seen.get(id) ?? new Set<number>();
      seen.set(id, keys);
      const n = numberOf(key);
      if (keys.has(n)) return true;
      if (keys.size >= perProjectDay || count >= remembered) return false;
      keys.add(n);
      count++;
      return true;
    },
  };
}

function previousDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}
