import type { CapPeriod } from "@/lib/schemas/spend-cap";

const day = (at: Date) => Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());

/** The UTC day or month `at` is in, as its first and its next period's first instants. */
export function periodOf(period: CapPeriod, at: Date): { start: Date; end: Date } {
  if (period === "day") {
    const start = day(at);
    return { start: new Date(start), end: new Date(start + 86_400_000) };
  }
  return {
    start: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)),
    end: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1)),
  };
}
