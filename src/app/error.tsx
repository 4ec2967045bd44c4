"use client";

import { PageError } from "@/components/ui/page-error";

/** Any other page failed (sign-in, onboarding, an invitation, a team's layout itself). */
export default function AppError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <main id="main" tabIndex={-1} className="mx-auto max-w-md px-4 py-16">
      <PageError {...props} />
    </main>
  );
}
