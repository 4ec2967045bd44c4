import { formatBytes, formatCount, formatPercent } from "@/lib/format";
import { DataTable } from "./data-table";

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
  store: { kind: "files" | "s3"; bytes: number; objects: number } | null;
}

/** Share of successful requests answered by each tier, and what the result store holds. */
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
      <p className="text-sm text-neutral-600" data-testid="result-store-size">
        {store
          ? `Result store (${store.kind === "s3" ? "S3-compatible bucket" : "files"}, shared by all projects): ${formatBytes(store.bytes)} in ${formatCount(store.objects)} results.`
          : "No result store: results are kept in memory only and made again after a restart."}
      </p>
    </div>
  );
}
