import { When } from "./when";

/**
 * Said under a filtered list whose filter was checked over a bounded number of rows (the server's
 * newest-first scans): how far back this page looked, and that Older looks further.
 */
export function SearchedBackTo({ at }: { at: Date | string | null | undefined }) {
  if (!at) return null;
  return (
    <p className="text-sm text-muted" role="status" data-testid="searched-back-to">
      Searched back to <When at={at} seconds />: <span className="font-medium">Older</span> searches further back.
    </p>
  );
}
