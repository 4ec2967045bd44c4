/** A chart tooltip on the card's own surface, in both themes (recharts draws it white otherwise). */
export const TOOLTIP_STYLE = {
  background: "var(--color-white)",
  border: "1px solid var(--color-neutral-200)",
  color: "var(--color-neutral-900)",
  fontSize: 12,
} as const;

const dayTick = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
const dayLabel = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeZone: "UTC" });

/**
 * A usage day (a UTC day, YYYY-MM-DD or the instant it starts) on a chart's axis and in its tooltip:
 * in the viewer's words, not moved to their zone. Charts draw in the browser only, so no hydration
 * question arises.
 */
export const utcDayTick = (day: string) => dayTick.format(new Date(day.length === 10 ? `${day}T00:00:00Z` : day));
export const utcDayLabel = (day: string) =>
  `${dayLabel.format(new Date(day.length === 10 ? `${day}T00:00:00Z` : day))} (UTC day)`;

/**
 * Room right of the plot, the same on both usage charts: the daily chart's bytes axis is this wide
 * (with its margin), and the outcome chart leaves it empty, so their days line up one above the other.
 */
export const CHART_RIGHT = 72;
