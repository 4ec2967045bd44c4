import { z } from "zod";

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "Choose a day (YYYY-MM-DD)");

/**
 * A preset counted back from today (UTC), or explicit UTC dates, both ends included. `recent`: from the
 * day of the first request the page's scope received, at most RECENT_DAYS back (what a new project opens
 * on: its traffic fills the chart instead of one bar at its right edge).
 */
export const dateRangeInput = z.union([
  z.object({ preset: z.enum(["recent", "7d", "30d", "90d"]) }),
  z.object({ from: isoDate, to: isoDate }),
]);
export type DateRangeInput = z.infer<typeof dateRangeInput>;

/** The custom range form; the server also bounds its length and keeps it out of the future. */
export const customRangeSchema = z.object({ from: isoDate, to: isoDate }).refine((range) => range.from <= range.to, {
  path: ["to"],
  error: "The start date must not be after the end date",
});

/** The most days the `recent` preset covers. */
export const RECENT_DAYS = 30;
