import { formatUtc } from "@/lib/format";

/** How current the metered numbers are: they lag traffic until the next flush. */
export function Freshness({ metering }: { metering: { lastFlushAt: Date | null; lastFlushFailed: boolean } }) {
  return (
    <p className="text-xs text-neutral-600" data-testid="freshness">
      All dates and times in UTC. Metered usage is up to date as of{" "}
      <strong className="font-medium">{metering.lastFlushAt ? formatUtc(metering.lastFlushAt) : "never (no flush has run yet)"}</strong>
      {metering.lastFlushFailed ? " · the last flush failed and will be retried" : ""}.
    </p>
  );
}
