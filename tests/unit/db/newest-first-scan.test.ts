import { describe, expect, it } from "vitest";
import { scanNewestFirst } from "@/server/db/newest-first-scan";
import { AppError } from "@/server/errors";

/** Rows newest first (id descending), read from an array as a keyset query would, statements counted. */
function table(size: number) {
  const rows = Array.from({ length: size }, (_, i) => ({ id: size - i }));
  const reads: number[] = [];
  return {
    reads,
    read: async (after: { id: number } | null, limit: number) => {
      reads.push(limit);
      const from = after ? rows.findIndex((row) => row.id < after.id) : 0;
      return from === -1 ? [] : rows.slice(from, from + limit);
    },
  };
}

const limits = { chunk: 10, budget: 35 };

describe("a bounded newest-first scan", () => {
  it("stops at the budget whatever the table holds, and says where to go on", async () => {
    const t = table(10_000);
    const scanned = await scanNewestFirst({ read: t.read, matches: () => false, want: 5, limits });
    expect(scanned).toEqual({ rows: [], resume: { id: 10_000 - 34 }, partial: true });
    // Four statements of at most ten rows: 35 read, never more.
    expect(t.reads).toEqual([10, 10, 10, 5]);
  });

  it("answers a full page and one more match as the cursor of the next page", async () => {
    const t = table(100);
    const scanned = await scanNewestFirst({ read: t.read, matches: (row) => row.id % 2 === 0, want: 3, limits });
    expect(scanned.rows.map((row) => row.id)).toEqual([100, 98, 96]);
    expect(scanned.resume).toEqual({ id: 96 });
    expect(scanned.partial).toBe(false);
  });

  it("reaches the end of a short table: no cursor, not partial", async () => {
    const t = table(12);
    const scanned = await scanNewestFirst({ read: t.read, matches: (row) => row.id === 1, want: 3, limits });
    expect(scanned).toEqual({ rows: [{ id: 1 }], resume: null, partial: false });
  });

  it("goes on from the cursor it gave: the pages together are every match, each once", async () => {
    const t = table(200);
    const seen: number[] = [];
    let after: { id: number } | null = null;
    for (let calls = 0; calls < 100; calls++) {
      const from: { id: number } | null = after;
      const scanned: Awaited<ReturnType<typeof scanNewestFirst<{ id: number }>>> = await scanNewestFirst<{
        id: number;
      }>({
        read: (a, size) => t.read(a ?? from, size),
        matches: (row) => row.id % 7 === 0,
        want: 4,
        limits,
      });
      seen.push(...scanned.rows.map((row) => row.id));
      if (!scanned.resume) break;
      after = scanned.resume;
    }
    expect(seen).toEqual(Array.from({ length: 28 }, (_, i) => 196 - i * 7));
  });

  it("reads nothing more once its client has gone", async () => {
    const t = table(10_000);
    const gone = new AbortController();
    const scanning = scanNewestFirst<{ id: number }>({
      read: async (after, size) => {
        gone.abort();
        return t.read(after, size);
      },
      matches: () => false,
      want: 5,
      limits,
      signal: gone.signal,
    });
    await expect(scanning).rejects.toSatisfy((error) => error instanceof AppError && error.code === "CLIENT_GONE");
    expect(t.reads).toEqual([10]);
  });
});
