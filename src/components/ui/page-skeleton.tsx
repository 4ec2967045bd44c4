/**
 * What a page shows while its data streams in: the shape of a card or two, pulsing, and a sentence
 * for screen readers. Shown by the route's loading.tsx at once on navigation, so a click is answered
 * even when the server takes seconds.
 */
export function PageSkeleton() {
  return (
    <div role="status" aria-busy="true" data-testid="page-loading" className="space-y-6">
      <span className="sr-only">Loading this page</span>
      {[0, 1].map((card) => (
        <div key={card} aria-hidden className="space-y-3 rounded-lg border border-line bg-surface p-6">
          <div className="h-5 w-40 animate-pulse rounded bg-line" />
          <div className="h-4 w-full animate-pulse rounded bg-sunken" />
          <div className="h-4 w-5/6 animate-pulse rounded bg-sunken" />
          <div className="h-4 w-2/3 animate-pulse rounded bg-sunken" />
        </div>
      ))}
    </div>
  );
}
