import { When } from "@/components/ui/when";

/** What the server says about how current metering is (src/server/cron/metering-freshness.ts). */
export interface MeteringView {
  /** Every request before this instant is in the numbers; null before the first flush. */
  meteredUpTo: Date | null;
  lastFlushFailed: boolean;
  /** The longest a request takes to be counted, from the server's own schedule; null when the flush is called from outside. */
  appearsWithinSeconds: number | null;
}

/**
 * How current the metered numbers are: requests reach them after their minute is flushed, so the request
 * log lists traffic the totals do not count yet. Says up to when they count and how long newer requests take.
 */
export function Freshness({ metering }: { metering: MeteringView }) {
  const wait =
    metering.appearsWithinSeconds === null ? "at the next usage flush" : `within ${metering.appearsWithinSeconds} s`;
  return (
    <p className="text-xs text-muted" data-testid="freshness">
      Times in your time zone (hover one for UTC); a day is a UTC day.{" "}
      {metering.meteredUpTo ? (
        <>
          Metered up to{" "}
          <strong className="font-medium">
            <When at={metering.meteredUpTo} />
          </strong>
          ; newer requests appear {wait}.
        </>
      ) : (
        <>Nothing metered yet (no flush has run); requests appear {wait}.</>
      )}
      {metering.lastFlushFailed ? " The last flush failed and will be retried." : ""}
    </p>
  );
}
