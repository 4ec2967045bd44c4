"use client";

import { Button } from "./button";

/**
 * What an error boundary shows when a page failed on the server (the database gone, a bug). The digest
 * is what the server's log line carries; the message is never shown: it may name internals, and a
 * production build replaces it anyway.
 */
export function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="rounded-lg border border-danger-line bg-danger-soft p-6">
      <h2 className="font-semibold text-danger">This page could not be loaded</h2>
      <p className="mt-1 text-sm text-danger">
        Try again in a moment.{error.digest ? ` Reference: ${error.digest}` : ""}
      </p>
      <Button className="mt-4" onClick={reset}>
        Try again
      </Button>
    </div>
  );
}
