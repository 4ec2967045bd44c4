"use client";

import { PageError } from "@/components/ui/page-error";

/** A page of the team failed: shown inside the team's header and navigation, which still work. */
export default function TeamError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError {...props} />;
}
