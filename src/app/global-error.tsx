"use client";

import { PageError } from "@/components/ui/page-error";
import "./globals.css";

/** The root layout itself failed: this replaces it, so it brings its own document. */
export default function GlobalError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-canvas font-sans text-ink antialiased">
        <main id="main" tabIndex={-1} className="mx-auto max-w-md px-4 py-16">
          <PageError {...props} />
        </main>
      </body>
    </html>
  );
}
