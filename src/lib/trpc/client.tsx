"use client";

import { QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { MAX_BATCH } from "./batch-size";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import superjson from "superjson";
import type { AppRouter } from "@/server/api/root";
import { toastingMutationCache } from "./mutation-toasts";
import { makeQueryClient } from "./query-client";
import { REFUSALS_AS_DATA } from "./refusals";

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

export function TrpcProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(() => makeQueryClient({ mutationCache: toastingMutationCache() }));
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      // Refusals come back as data (refusals.ts): the browser logs no failed request for a refused form.
      links: [
        httpBatchLink({
          url: "/api/trpc",
          transformer: superjson,
          maxItems: MAX_BATCH,
          headers: { [REFUSALS_AS_DATA.header]: REFUSALS_AS_DATA.value },
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
