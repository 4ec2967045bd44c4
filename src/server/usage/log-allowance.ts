import { withBudget } from "@/server/coordination/failure-policy";
import { redisKeys, TTL_SECONDS } from "@/server/coordination/keys";
import type { KeyValue } from "@/server/coordination/types";

export type RowKind = "success" | "failure";

/** Request-log rows a project may get per UTC minute, from the whole fleet; 0 keeps none. */
export type RowCaps = Record<RowKind, number>;

export interface RowCandidate {
  kind: RowKind;
  projectId: string;
  at: Date;
}

/** An instance takes a project-minute's allowance in chunks of an eighth of it, at most 16 rows. */
const chunkOf = (cap: number) => Math.max(1, Math.min(16, Math.floor(cap / 8)));

interface Held {
  left: number;
  /** The fleet's allowance for this project-minute is spent: Redis is not asked again. */
  full: boolean;
  minute: number;
}

const KEYS = { success: redisKeys.requestLogSuccesses, failure: redisKeys.requestLogFailures } as const;

/**
 * The request log's caps, held for the fleet: each project-minute's rows are counted in one shared
 * counter, which an instance asks once per chunk of rows (INCRBY), not once per row, and no more once
 * it saw the allowance spent. So one busy project's log grows by at most the cap a minute whatever the
 * number of instances, at about one command per project and minute for a project with little traffic.
 * Rows a chunk took and nobody wrote are not given back: the log may hold fewer rows than the cap,
 * never more. Without an answer from Redis in time, no row (counted by the caller): no shared count,
 * no unbounded writes.
 */
export function createLogAllowance(kv: KeyValue, caps: RowCaps) {
  const held = new Map<string, Held>();

  async function take(kind: RowKind, projectId: string, at: Date, wanted: number): Promise<number> {
    const cap = caps[kind];
    if (cap <= 0) return 0;
    const key = KEYS[kind](projectId, at);
    const entry = held.get(key) ?? { left: 0, full: false, minute: Math.floor(at.getTime() / 60_000) };
    held.set(key, entry);
    if (entry.left < wanted && !entry.full) {
      const ask = Math.max(chunkOf(cap), wanted - entry.left);
      const total = await withBudget("requestLogCap", kv.increment(key, TTL_SECONDS.requestLogRows, ask));
      const granted = Math.max(0, Math.min(ask, cap - (total - ask)));
      entry.left += granted;
      if (granted < ask) entry.full = true;
    }
    const given = Math.min(wanted, entry.left);
    entry.left -= given;
    return given;
  }

  /** Forgets minutes before the previous one: the map holds the projects of two minutes at most. */
  function sweep(now: Date): void {
    const current = Math.floor(now.getTime() / 60_000);
    for (const [key, entry] of held) if (entry.minute < current - 1) held.delete(key);
  }

  return {
    /** Which of a batch's candidate rows become rows, in order within each project, kind and minute. */
    async admit(candidates: readonly RowCandidate[], now: Date = new Date()): Promise<boolean[]> {
      sweep(now);
      const groups = new Map<string, number[]>();
      candidates.forEach((candidate, i) => {
        const key = KEYS[candidate.kind](candidate.projectId, candidate.at);
        const group = groups.get(key);
        if (group) group.push(i);
        else groups.set(key, [i]);
      });
      const admitted = candidates.map(() => false);
      await Promise.all(
        [...groups.values()].map(async (indices) => {
          const first = candidates[indices[0]!]!;
          const given = await take(first.kind, first.projectId, first.at, indices.length).catch(() => 0);
          for (const i of indices.slice(0, given)) admitted[i] = true;
        }),
      );
      return admitted;
    },
  };
}

export type LogAllowance = ReturnType<typeof createLogAllowance>;
