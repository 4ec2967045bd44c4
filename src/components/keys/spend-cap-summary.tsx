import { capAmount, capUnit, SPEND_CAPS, type SpendCapName } from "@/lib/schemas/spend-cap";
import type { CapUse } from "@/server/spend-caps/spending";
import { When } from "@/components/ui/when";
import { cn } from "@/lib/cn";

/** A key's caps in its row: what it spent of each, and, once it reached one, until when it is held. */
export function SpendCapSummary({
  uses,
  reached,
}: {
  uses: readonly CapUse[];
  reached: { cap: SpendCapName; until: Date } | null;
}) {
  if (uses.length === 0 && !reached) return null;
  return (
    <div className="text-xs" data-testid="key-spend-caps">
      {reached ? (
        <p className="font-medium text-danger" role="status">
          Cap reached ({SPEND_CAPS[reached.cap].label}): new images refused until <When at={reached.until} />
        </p>
      ) : null}
      {uses.length > 0 ? (
        <p className="text-subtle">
          Caps:{" "}
          {uses.map((use, i) => (
            <span key={use.cap} className={cn(use.percent >= 80 && "font-medium text-warning")}>
              {i > 0 ? "; " : ""}
              {capAmount(use.cap, use.spent)} of {capAmount(use.cap, use.limit)} {capUnit(use.cap)} ({use.percent} %)
            </span>
          ))}
        </p>
      ) : null}
    </div>
  );
}
