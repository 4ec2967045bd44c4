/**
 * How many days request_stats keeps by the hour (the day running and the week before it): what the
 * usage pages draw by the hour. Older days are folded into one row per project, status and cache tier,
 * at the day's midnight (stats-compaction.ts), so a 90-day read of a project is about 270 rows per
 * status and tier instead of 2,160, and a team's is 50 times that at most.
 */
export const HOURLY_STATS_DAYS = 8;
const DAY_MS = 86_400_000;

/** The first instant still kept by the hour, for `now`. */
export function hourlyStatsSince(now: Date): Date {
  return new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - (HOURLY_STATS_DAYS - 1) * DAY_MS);
}
