import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Freshness, type MeteringView } from "@/components/usage/freshness";
import { meteringDelayMs } from "@/server/cron/metering-freshness";
import { defaultSchedule } from "@/server/cron/schedule";
import { defaultFlushOptions } from "@/server/usage/flush-usage-buffer";

/**
 * The request log lists a request at once; the metered totals count it only once its minute is
 * flushed. The usage pages say up to when the totals count and how long newer requests take, from the
 * server's actual schedule, so "0 requests" beside a logged request is explained, not a bug report.
 */
const text = (metering: MeteringView) =>
  renderToStaticMarkup(createElement(Freshness, { metering })).replace(/<[^>]+>/g, "");

describe("the usage pages' freshness line", () => {
  const appearsWithinSeconds = Math.ceil(meteringDelayMs(defaultSchedule, defaultFlushOptions) / 1000);

  it("says up to when requests are metered and within how long newer ones appear, from the schedule", () => {
    expect(appearsWithinSeconds).toBe(66);
    expect(text({ meteredUpTo: new Date("2026-11-23T14:05:00Z"), lastFlushFailed: false, appearsWithinSeconds })).toBe(
      "Times in your time zone (hover one for UTC); a day is a UTC day. Metered up to 2026-11-23 14:05 UTC; newer requests appear within 66 s.",
    );
  });

  it("says so before the first flush, when the last one failed, and when the flush is scheduled elsewhere", () => {
    expect(text({ meteredUpTo: null, lastFlushFailed: false, appearsWithinSeconds })).toBe(
      "Times in your time zone (hover one for UTC); a day is a UTC day. Nothing metered yet (no flush has run); requests appear within 66 s.",
    );
    expect(
      text({ meteredUpTo: new Date("2026-11-23T14:05:30Z"), lastFlushFailed: true, appearsWithinSeconds: null }),
    ).toBe(
      "Times in your time zone (hover one for UTC); a day is a UTC day. Metered up to 2026-11-23 14:05 UTC; newer requests appear at the next usage flush. The last flush failed and will be retried.",
    );
  });
});
