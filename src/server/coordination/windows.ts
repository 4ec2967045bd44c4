import type { LimitWindow } from "./types";

export const WINDOW_MS: Record<LimitWindow, number> = {
  minute: 60_000,
  quarterHour: 900_000,
  hour: 3_600_000,
  day: 86_400_000,
};
/** The same windows in @upstash/ratelimit's duration syntax. */
export const WINDOW_DURATION = {
  minute: "1 m",
  quarterHour: "15 m",
  hour: "1 h",
  day: "1 d",
} as const satisfies Record<LimitWindow, string>;
