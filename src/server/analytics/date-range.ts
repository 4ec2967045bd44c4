import { RECENT_DAYS, type DateRangeInput } from "@/lib/schemas/date-range";
import { AppError } from "@/server/errors";

export const MAX_RANGE_DAYS = 90;
export const DAY_MS = 24 * 60 * 60 * 1000;

export interface DateRange {
  /** UTC dates, YYYY-MM-DD, inclusive. */
  from: string;
  to: string;
  days: number;
  /** The same number of days just before, for trends. */
  previous: { from: string; to: string };
}

/** The UTC date (YYYY-MM-DD) of an instant. */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function parseDay(text: string, name: string): number {
  const ms = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(ms) || dayOf(ms) !== text)
    throw new AppError("INVALID_INPUT", { message: `${name} is not a valid date` });
  return ms;
}

/**
 * `firstDay`: the day of the scope's first request, for the `recent` preset (none yet: today alone).
 */
export function resolveDateRange(
  input: DateRangeInput,
  now: Date,
  maxDays = MAX_RANGE_DAYS,
  firstDay?: string | null,
): DateRange {
  const today = parseDay(dayOf(now.getTime()), "Today");
  let from: number;
  let to: number;
  if ("preset" in input && input.preset === "recent") {
    to = today;
    const first = firstDay ? Math.min(parseDay(firstDay, "The first request's day"), today) : today;
    from = Math.max(first, today - (RECENT_DAYS - 1) * DAY_MS);
  } else if ("preset" in input) {
    to = today;
    from = today - (Number.parseInt(input.preset, 10) - 1) * DAY_MS;
  } else {
    from = parseDay(input.from, "The start date");
    to = parseDay(input.to, "The end date");
    if (from > to) throw new AppError("INVALID_INPUT", { message: "The start date must not be after the end date" });
    if (to > today) throw new AppError("INVALID_INPUT", { message: "The end date must not be in the future" });
  }
  const days = Math.round((to - from) / DAY_MS) + 1;
  if (days > maxDays) throw new AppError("INVALID_INPUT", { message: `A range covers at most ${maxDays} days` });
  return {
    from: dayOf(from),
    to: dayOf(to),
    days,
    previous: { from: dayOf(from - days * DAY_MS), to: dayOf(from - DAY_MS) },
  };
}

/** Every date of the range, for series that show days without traffic as zero. */
export function datesOf(range: Pick<DateRange, "from" | "days">): string[] {
  const start = parseDay(range.from, "The start date");
  return Array.from({ length: range.days }, (_, i) => dayOf(start + i * DAY_MS));
}

/** Timestamps bounding the range's days in UTC: [start, end). */
export function rangeInstants(range: Pick<DateRange, "from" | "to">): { start: Date; end: Date } {
  return {
    start: new Date(parseDay(range.from, "The start date")),
    end: new Date(parseDay(range.to, "The end date") + DAY_MS),
  };
}
