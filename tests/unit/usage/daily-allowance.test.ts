import { describe, expect, it } from "vitest";
import { createDailyAllowance } from "@/server/usage/daily-allowance";
import { loggedSourceText, LOGGED_SOURCE_CHARS, sourceHashOf } from "@/server/usage/logged-source";

describe("a project-day's allowance of distinct keys", () => {
  it("admits up to its size, then only the keys it already admitted, per project and day", () => {
    const allowance = createDailyAllowance(3);
    const admitted = ["a1", "b2", "c3", "d4", "a1"].map((key) => allowance.admits("p", "2026-11-28", key));
    expect(admitted).toEqual([true, true, true, false, true]);
    // Another project, and the next day, have their own.
    expect(allowance.admits("q", "2026-11-28", "d4")).toBe(true);
    expect(allowance.admits("p", "2026-11-29", "d4")).toBe(true);
    // Yesterday is still remembered (a batch written just after midnight), the day before is forgotten.
    expect(allowance.admits("p", "2026-11-28", "e5")).toBe(false);
    allowance.admits("p", "2026-11-30", "x");
    expect(allowance.admits("p", "2026-11-28", "e5")).toBe(true);
  });

  it("remembers a bounded number of keys, every project together", () => {
    const allowance = createDailyAllowance(10, 25);
    const admitted = Array.from({ length: 5 }, (_, p) =>
      Array.from({ length: 10 }, (_, k) => allowance.admits(`p${p}`, "2026-11-28", `key-${k}`)).filter(Boolean),
    ).map((keys) => keys.length);
    // 25 keys in all: two projects at their 10, the third at 5, the rest none; a known key stays known.
    expect(admitted).toEqual([10, 10, 5, 0, 0]);
    expect(allowance.admits("p0", "2026-11-28", "key-3")).toBe(true);
    // A new day forgets the day before yesterday's keys, and their room comes back.
    allowance.admits("p9", "2026-11-30", "x");
    expect(allowance.admits("p4", "2026-11-30", "key-0")).toBe(true);
  });
});

describe("what the log keeps of a source", () => {
  it("keeps short names whole and clips long ones, marked, never splitting a surrogate pair", () => {
    expect(loggedSourceText("local/a.jpg")).toBe("local/a.jpg");
    const long = `local/${"a".repeat(3000)}`;
    expect(loggedSourceText(long)).toHaveLength(LOGGED_SOURCE_CHARS);
    expect(loggedSourceText(long).endsWith("…")).toBe(true);
    const emoji = `${"a".repeat(LOGGED_SOURCE_CHARS - 2)}😀😀`;
    const clipped = loggedSourceText(emoji);
    expect(clipped.endsWith("a…")).toBe(true);
    expect(clipped.length).toBeLessThanOrEqual(LOGGED_SOURCE_CHARS);
  });

  it("hashes the whole name: two names clipped alike stay apart", () => {
    const a = `local/${"a".repeat(3000)}1`;
    const b = `local/${"a".repeat(3000)}2`;
    expect(loggedSourceText(a)).toBe(loggedSourceText(b));
    expect(sourceHashOf(a)).not.toBe(sourceHashOf(b));
    expect(sourceHashOf(a)).toMatch(/^[0-9a-f]{32}$/);
  });
});
