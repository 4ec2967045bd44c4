import { formatCount, formatPercent } from "@/lib/format";
import type { StoreShare } from "@/server/result-store/store-share";
import { DataTable } from "./data-table";
import { describeStoreShare } from "./store-share";

/** What each request-log `cache` value means to a reader of the Usage page. */
const TIERS: Record<string, string> = {
  hit: "In memory (L1)",
  shared: "Joined a transform in progress",
  store: "Result store",
  miss: "Transformed",
  revalidated: "Not modified (304)",
};

export interface CacheTiersProps {
  tiers: ReadonlyArray<{ tier: string; requests: number }>;
  store: StoreShare | null;
}

/** Share of successful requests answered by each tier, and this project's share of the result store. */
export function CacheTiers({ tiers, store }: CacheTiersProps) {
  const total = tiers.reduce((sum, t) => sum + t.requests, 0);
  return (
    <div className="space-y-3">
      <DataTable
        label="Requests by cache tier"
        testId="cache-tiers"
        rows={tiers}
        rowKey={(t) => t.tier}
        columns={[
          { header: "Answered from", cell: (t) => TIERS[t.tier] ?? t.tier },
          { header: "Requests", numeric: true, cell: (t) => formatCount(t.requests) },
          { header: "Share", numeric: true, cell: (t) => formatPercent(total > 0 ? t.requests / total : null) },
        ]}
      />
      <p className="text-sm text-muted" data-testid="result-store-size">
        {describeStoreShare(store)}
      </p>
    </div>
  );
}
