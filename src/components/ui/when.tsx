"use client";

import { useSyncExternalStore } from "react";
import { utcStamp } from "@/lib/format";

const noSubscription = () => () => {};

/**
 * True once the page runs in the viewer's browser. The server knows neither the viewer's locale nor
 * time zone: it writes UTC, and the browser rewrites it after hydration (no mismatch, no flash of a
 * wrong local time).
 */
function useInBrowser(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

const instant = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const instantSeconds = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });
// A usage day is a UTC day: written in the viewer's words, but not moved to their zone.
const utcDay = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeZone: "UTC" });

/**
 * The one way the dashboard writes a moment: in the viewer's locale and time zone, with UTC on hover
 * (and in `dateTime` for machines). `day` is a UTC date (YYYY-MM-DD) such as a usage day.
 */
export function When(props: { at: Date | string; seconds?: boolean } | { day: string }) {
  const inBrowser = useInBrowser();
  if ("day" in props) {
    const date = new Date(`${props.day}T00:00:00Z`);
    return (
      <time dateTime={props.day} title={`${props.day} (UTC day)`}>
        {inBrowser ? utcDay.format(date) : props.day}
      </time>
    );
  }
  const at = new Date(props.at);
  const precision = props.seconds ? "second" : "minute";
  const utc = `${utcStamp(at, precision)} UTC`;
  return (
    <time dateTime={at.toISOString()} title={utc}>
      {inBrowser ? (props.seconds ? instantSeconds : instant).format(at) : utc}
    </time>
  );
}
